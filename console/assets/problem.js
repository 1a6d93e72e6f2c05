// Submitting an annealing problem. A device lists the public service's
// name for what it takes (runInputTypes qubo), while a program is sent
// in its format (problem); the example is a QUBO as the public client
// serializes one (json.dumps: each quadratic key a JSON array of two
// names); a problem's reads are the job's shots.

// The formats of the programs that a device's runInputTypes name: the
// public service's names for them (pyquil for quil, …); other names are
// formats themselves.
const FORMAT_OF = { pyquil: 'quil', ionq: 'ionq.circuit.v0', braket_ahs: 'analog', pulser: 'pulser.sequence', qubo: 'problem' };

export function formatsOf(types) {
  return [...new Set((types || []).map((t) => FORMAT_OF[t] || t))];
}

export const isAnnealer = (device) => device?.paradigm === 'annealing';

// Max-cut of a square (a–b–c–d–a): each edge uv adds −x_u − x_v + 2·x_u·x_v,
// −1 when it is cut. The ground energy is −4, at a = c ≠ b = d.
export const MAXCUT = String.raw`{"problem_type": "qubo", "linear": {"a": -2, "b": -2, "c": -2, "d": -2}, "quadratic": {"[\"a\", \"b\"]": 2, "[\"b\", \"c\"]": 2, "[\"c\", \"d\"]": 2, "[\"d\", \"a\"]": 2}}`;

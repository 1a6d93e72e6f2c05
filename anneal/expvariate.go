package anneal

import "math"

// A Metropolis move that raises the energy by d is taken with probability
// exp(−β·d): taken when β·d ≤ E, for E drawn from the exponential
// distribution (P(E ≥ t) = exp(−t)). Drawing E by the ziggurat method
// (Marsaglia and Tsang, 2000) costs a table lookup and a multiplication 99
// times in 100, no exp, and leaves one comparison whose outcome the CPU
// cannot guess instead of two (downhill or not, then taken or not): a
// downhill move (β·d ≤ 0 ≤ E) is taken by the same comparison.

const (
	zigLayers = 256
	zigR      = 7.69711747013104972  // where the tail starts
	zigV      = 3.949659822581572e-3 // each layer's area
)

// zigX are the layers' right edges, decreasing: layer i spans [0, zigX[i]]
// between heights exp(−zigX[i]) and exp(−zigX[i+1]); layer 0 is the base
// strip with the tail beyond zigR (zigX[0] = zigV / exp(−zigR)).
// zigW[i] is zigX[i]/2^53 and zigK[i] is where, in 53 bits, a draw falls
// inside the part of layer i that lies wholly under the curve.
var (
	zigX [zigLayers + 1]float64
	zigF [zigLayers + 1]float64 // exp(−zigX[i])
	zigW [zigLayers]float64
	zigK [zigLayers]uint64
)

func init() {
	zigX[0] = zigV / math.Exp(-zigR)
	zigX[1] = zigR
	for i := 2; i < zigLayers; i++ {
		zigX[i] = -math.Log(zigV/zigX[i-1] + math.Exp(-zigX[i-1]))
	}
	zigX[zigLayers] = 0
	for i, x := range zigX {
		zigF[i] = math.Exp(-x)
	}
	for i := range zigLayers {
		zigW[i] = zigX[i] * 0x1p-53
		zigK[i] = uint64(zigX[i+1] / zigX[i] * 0x1p53)
	}
}

// expSlow finishes a draw that fell outside layer i's inner part: in the
// tail, or in the wedge between the layer and the curve (then kept when
// under the curve), else drawn again.
func expSlow(r *rng, i int, x float64) float64 {
	for {
		if i == 0 {
			return zigR - math.Log(1-r.float())
		}
		if zigF[i]+r.float()*(zigF[i+1]-zigF[i]) < math.Exp(-x) {
			return x
		}
		b := r.next()
		i = int(b & (zigLayers - 1))
		j := b >> 11
		x = float64(j) * zigW[i]
		if j < zigK[i] {
			return x
		}
	}
}

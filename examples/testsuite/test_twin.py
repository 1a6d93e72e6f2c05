"""A test suite in Python against the quantum job service, as docs/testing.md
shows how to write one: only the standard library.

It drives the service through the control API (/control/v1): a clean
service before each test, a device taken offline, a failure injected, a
queue held and released, a device slowed down, a user added with credits.
The code under test here is `run_job`, a small client of the kind an
application has; the tests check how it handles what the twin makes happen.

Environment:
  QUANTUM_URLS         the server's URL, or several nodes' separated by
                       commas (the control API is called on the first, jobs
                       go to each in turn), e.g. http://127.0.0.1:8080
  QUANTUM_CONTROL_KEY  the server's control key
  QUANTUM_API_KEY      an API key of the server

Run: python3 -m unittest -v test_twin   (in this directory)
"""

import itertools
import json
import os
import time
import unittest
import urllib.error
import urllib.request

URLS = os.environ["QUANTUM_URLS"].split(",")
CONTROL_KEY = os.environ["QUANTUM_CONTROL_KEY"]
API_KEY = os.environ["QUANTUM_API_KEY"]
DEVICE = "qbraid:qbraid:sim:qir-sv"
OTHER_DEVICE = "aws:aws:sim:sv1"
BELL = """OPENQASM 3.0;
include "stdgates.inc";
qubit[2] q;
bit[2] c;
h q[0];
cx q[0], q[1];
c = measure q;
"""

_nodes = itertools.cycle(URLS)


class APIError(Exception):
    """An answer of the service that is not a success: its HTTP status and code."""

    def __init__(self, status, body):
        self.status = status
        self.body = body
        error = body.get("error", {})
        self.code = error.get("code")
        self.fields = [d["field"] for d in error.get("details") or []]
        super().__init__(f"{status} {self.code}: {body.get('message')}")


def call(method, path, body=None, key=API_KEY, header="X-API-KEY", url=None):
    """One request to the service; the answer's data, or APIError."""
    data = json.dumps(body).encode() if body is not None else None
    req = urllib.request.Request((url or next(_nodes)) + path, data=data, method=method)
    req.add_header(header, key)
    if data is not None:
        req.add_header("Content-Type", "application/json")
    try:
        with urllib.request.urlopen(req, timeout=30) as res:
            return json.load(res)["data"]
    except urllib.error.HTTPError as e:
        raise APIError(e.code, json.load(e)) from None


def control(method, path, body=None, key=CONTROL_KEY):
    """A call of the control API, always on the first node."""
    return call(method, "/control/v1" + path, body, key=key, header="X-CONTROL-KEY", url=URLS[0])


class JobFailed(Exception):
    pass


def run_job(program, device=DEVICE, shots=100, key=API_KEY, timeout=30):
    """The code under test: submit a program, wait for its job, return the
    counts, or raise JobFailed with the job's statusMsg."""
    job = call("POST", "/api/v1/jobs", {
        "program": {"format": "qasm3", "data": program},
        "shots": shots, "deviceQrn": device}, key=key)
    qrn = job["jobQrn"]
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        job = call("GET", "/api/v1/jobs/" + qrn, key=key)
        if job["status"] == "COMPLETED":
            return call("GET", f"/api/v1/jobs/{qrn}/result", key=key)["resultData"]["measurementCounts"]
        if job["status"] in ("FAILED", "CANCELLED"):
            raise JobFailed(job["statusMsg"])
        time.sleep(0.02)
    raise TimeoutError(f"job {qrn} still {job['status']}")


class TwinTest(unittest.TestCase):
    def setUp(self):
        # Each test starts from a clean service: no jobs, every device as
        # the catalogue has it.
        self.assertEqual(control("POST", "/reset"), {"done": True})

    def test_a_bell_pair(self):
        counts = run_job(BELL)
        self.assertEqual(set(counts) <= {"00", "11"}, True)
        self.assertEqual(sum(counts.values()), 100)

    def test_an_offline_device_refuses_jobs(self):
        device = control("PUT", "/devices/" + DEVICE, {"status": "OFFLINE", "statusMsg": "maintenance"})
        self.assertEqual(device["status"], "OFFLINE")
        with self.assertRaises(APIError) as e:
            run_job(BELL)
        self.assertEqual((e.exception.status, e.exception.code, e.exception.fields), (422, "VALIDATION_ERROR", ["deviceQrn"]))
        shown = call("GET", "/api/v1/devices/" + DEVICE)
        self.assertEqual((shown["status"], shown["statusMsg"]), ("OFFLINE", "maintenance"))
        control("PUT", "/devices/" + DEVICE, {"status": "ONLINE", "statusMsg": None})
        self.assertEqual(sum(run_job(BELL).values()), 100)

    def test_an_injected_failure_reaches_the_caller(self):
        control("POST", f"/devices/{DEVICE}/failures", {"count": 1, "message": "calibration drifted"})
        with self.assertRaises(JobFailed) as e:
            run_job(BELL)
        self.assertEqual(str(e.exception), "calibration drifted")
        self.assertEqual(sum(run_job(BELL).values()), 100)  # only one was injected

    def test_a_held_queue(self):
        control("POST", f"/devices/{DEVICE}/hold")
        job = call("POST", "/api/v1/jobs", {"program": {"format": "qasm3", "data": BELL}, "shots": 10, "deviceQrn": DEVICE})
        # Another device's jobs run meanwhile; the held one's stays queued.
        for _ in range(3):
            run_job(BELL, device=OTHER_DEVICE)
        self.assertEqual(call("GET", "/api/v1/jobs/" + job["jobQrn"])["status"], "QUEUED")
        control("DELETE", f"/devices/{DEVICE}/hold")
        deadline = time.monotonic() + 30
        while call("GET", "/api/v1/jobs/" + job["jobQrn"])["status"] != "COMPLETED":
            self.assertLess(time.monotonic(), deadline)
            time.sleep(0.02)

    def test_a_slow_device(self):
        control("PUT", "/devices/" + DEVICE, {"latency": "300ms"})
        start = time.monotonic()
        run_job(BELL)
        self.assertGreaterEqual(time.monotonic() - start, 0.3)

    def test_a_user_with_credits(self):
        key = "suite-user-" + os.urandom(8).hex()
        user = control("POST", "/users", {"apiKey": key, "name": "suite", "credits": 50})
        self.assertEqual(call("GET", "/api/v1/users/verify", key=key)["userId"], user["userId"])
        self.assertEqual(call("GET", "/api/v1/billing/credits/balance", key=key)["qbraidCredits"], 50)
        balance = control("POST", f"/users/{user['userId']}/credits", {"amount": 25})
        self.assertEqual(balance["qbraidCredits"], 75)
        with self.assertRaises(APIError) as e:
            control("POST", "/users", {"apiKey": key})
        self.assertEqual((e.exception.status, e.exception.code), (409, "CONFLICT"))

    def test_the_control_key_is_required(self):
        for key in ("", "not-the-control-key", API_KEY):
            with self.assertRaises(APIError) as e:
                control("POST", "/reset", key=key)
            self.assertEqual(e.exception.status, 401)
        with self.assertRaises(APIError) as e:
            control("PUT", "/devices/" + DEVICE, {"status": "BROKEN", "latency": "soon"})
        self.assertEqual((e.exception.status, sorted(e.exception.fields)), (422, ["latency"]))


if __name__ == "__main__":
    unittest.main()

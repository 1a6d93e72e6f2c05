// Package apitest is the conformance suite of quantum.API: every method,
// its answers and its errors, as subtests that any implementation must
// pass. Every assertion is exact (whole values, error codes, messages and
// field details), and only what cannot be known in advance (QRNs, times,
// measured durations) is checked for its form instead, so that two
// implementations that pass give the same answers: the in-process API
// (Service.For) and the HTTP client against httpadapter run it, and
// passing on both is the proof that code written against quantum.API runs
// unchanged on either.
package apitest

import (
	"testing"

	"github.com/qjobs/quantum"
)

// Target makes the API under test.
type Target struct {
	Name string
	// Open returns a running Service (closed when the test ends) and a
	// function that gives the API acting for the holder of an API key
	// added to it with svc.AddAPIKey.
	Open func(t *testing.T, opts ...quantum.Option) (*quantum.Service, func(t *testing.T, key string) quantum.API)
}

// suite is every subtest, in the order Run runs them: each opens a
// Service of its own.
var suite = []struct {
	name string
	run  func(t *testing.T, target Target)
}{
	{"VerifyUser", testVerifyUser},
	{"CreateJob/Completes", testCreateCompletes},
	{"CreateJob/SameSeedSameCounts", testSameSeed},
	{"CreateJob/Cost", testCost},
	{"CreateJob/Validation", testCreateValidation},
	{"CreateJob/Idempotency", testIdempotency},
	{"CreateJob/TooManyActiveJobs", testTooManyActiveJobs},
	{"CreateJob/Formats", testFormats},
	{"Batch/Completes", testBatchCompletes},
	{"Batch/Seed", testBatchSeed},
	{"Batch/Cost", testBatchCost},
	{"Batch/Invalid", testBatchInvalid},
	{"Batch/FailsNamingCircuit", testBatchFailsNamingCircuit},
	{"Batch/WorkBound", testBatchWorkBound},
	{"Batch/Cancel", testBatchCancel},
	{"Batch/Memory", testBatchMemory},
	{"NotFound", testNotFound},
	{"Forbidden", testForbidden},
	{"MalformedJobQRN", testMalformedJobQRN},
	{"GetJobResult/NotReady", testResultNotReady},
	{"CancelJob/Running", testCancelRunning},
	{"CancelJob/Queued", testCancelQueued},
	{"CancelJob/Finished", testCancelFinished},
	{"CancelJob/NotSupported", testCancelNotSupported},
	{"Failed", testFailed},
	{"DeleteJob", testDeleteJob},
	{"DeleteJobs", testDeleteJobs},
	{"ListJobs/Filters", testListJobs},
	{"ListJobs/Invalid", testListJobsInvalid},
	{"ListDevices", testListDevices},
	{"ListDevices/Invalid", testListDevicesInvalid},
	{"GetDevice", testGetDevice},
	{"EstimateCost", testEstimateCost},
	{"Credits/Balance", testCreditsBalance},
	{"Credits/CoverExactly", testCreditsCoverExactly},
	{"Credits/Reserved", testCreditsReserved},
	{"Credits/Batch", testCreditsBatch},
	{"Devices/Offline", testDeviceOffline},
	{"Devices/Retired", testDeviceRetired},
	{"Devices/FailsOnCue", testDeviceFailsOnCue},
	{"QPU/Coupling", testQPUCoupling},
	{"QPU/Documents", testQPUDocuments},
	{"QPU/MinRunTime", testQPUMinRunTime},
	{"QPU/Wide", testQPUWide},
	{"Methods/Sparse64", testSparse64},
	{"Methods/Stabilizer", testStabilizer},
	{"Methods/AdaptiveSparse", testAdaptiveSparse},
	{"Methods/WideDeviceFewQubits", testWideDeviceFewQubits},
	{"Noise/Models", testNoiseModels},
	{"Noise/Feedback", testNoiseFeedback},
	{"Noise/Pragmas", testNoisePragmas},
	{"Noise/QPU", testNoiseQPU},
	{"Noise/EmulatedQPU", testNoiseEmulatedQPU},
	{"Noise/Invalid", testNoiseInvalid},
	{"Wait/Finished", testWaitFinished},
	{"Wait/CancelledContext", testWaitCancelledContext},
	{"Wait/DeadlineWhileRunning", testWaitDeadline},
}

// Run runs the suite against target.
func Run(t *testing.T, target Target) {
	for _, s := range suite {
		t.Run(s.name, func(t *testing.T) { s.run(t, target) })
	}
}

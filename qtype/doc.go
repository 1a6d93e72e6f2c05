// Package qtype holds the nouns that a Service shares with its stores, its
// backends and its adapters: a job and its statuses, a program and a
// batch of them, a result, a device with its topology and calibration,
// the error a Service answers, the Backend contract a device runs on, and
// the Observer that receives its measurements.
//
// Package quantum names the ones an embedder uses (quantum.Job is
// qtype.Job, quantum.Backend is qtype.Backend); a store, a backend or an
// adapter imports qtype without the Service, as River's drivers import
// rivertype.
package qtype

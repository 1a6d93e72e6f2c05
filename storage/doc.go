// Package storage is the contract between a Service and the store that
// keeps its jobs: the Store interface and the optional ones a store may
// add (ExclusiveStore, BatchClaimer, ChangeFeed, CreditLedger), the rows
// they exchange (JobRecord, Queue, Claim, BatchClaim, JobFilter, credit
// entries), their errors, and what every store computes alike: the turns
// claims take and the arithmetic of credit reservations and settlements.
//
// It is for store implementers and the Service's engine; an embedder
// passes a store (store.NewMemory, store/badger, store/postgres) to
// quantum.New and never names this package. store/storetest is the
// conformance suite every Store passes.
package storage

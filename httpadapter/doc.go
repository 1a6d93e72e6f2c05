// Package httpadapter serves a quantum.Service as the /api/v1 REST API.
//
// It is thin on purpose: each handler decodes the request, calls one Service
// method and encodes the answer. Rules about values (ranges, enums, what a
// job may do next) live in the Service; this package only turns HTTP into Go
// types and back, and maps error codes to statuses in one table (status.go).
//
// Every success body is {"success": true, "data": ...}; every error body,
// unknown routes and wrong methods included, is
// {"success": false, "message": ..., "error": {"code", "message", "details"}}.
//
// GET /api/v1/jobs/{qrn}/events and GET /api/v1/jobs/events are
// Server-Sent Events (events.go): the job as GET /jobs/{qrn} shows it, at
// once and after each change. They are served from the Service's Watch,
// which the Service wakes on every change: a stream polls nothing.
// POST /api/v1/jobs takes an Idempotency-Key header.
package httpadapter

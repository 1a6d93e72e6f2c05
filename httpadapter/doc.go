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
package httpadapter

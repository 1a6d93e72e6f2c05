module github.com/qjobs/quantum/bench/versus

go 1.25.0

require (
	github.com/itsubaki/q v0.0.11
	github.com/qjobs/quantum v0.0.0
)

require (
	github.com/google/uuid v1.6.0 // indirect
	go.uber.org/multierr v1.10.0 // indirect
	go.uber.org/zap v1.28.0 // indirect
	golang.org/x/sys v0.41.0 // indirect
	gonum.org/v1/gonum v0.17.0 // indirect
)

replace github.com/qjobs/quantum => ../..

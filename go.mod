module github.com/qjobs/quantum

go 1.24.0

require (
	github.com/google/uuid v1.6.0
	go.uber.org/zap v1.28.0
	gonum.org/v1/gonum v0.17.0
)

require (
	github.com/stretchr/testify v1.11.1 // indirect
	go.uber.org/multierr v1.10.0 // indirect
)

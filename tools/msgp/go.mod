module github.com/paysandbox/paysandbox/tools/msgp

go 1.26.8

tool github.com/tinylib/msgp

require (
	github.com/philhofer/fwd v1.2.0 // indirect
	github.com/tinylib/msgp v1.6.5 // indirect
	golang.org/x/mod v0.18.0 // indirect
	golang.org/x/tools v0.22.0 // indirect
)

// Package tools pins, apart from the product's module graph, what the CI
// check scripts/openapi-generate-check uses: the oapi-codegen generator (a
// tool directive in go.mod) and the runtime its generated client imports.
package tools

import _ "github.com/oapi-codegen/runtime"

// Package tools pins, apart from the product's module graph, the Go tools
// the CI checks run: the oapi-codegen generator, with the runtime its
// generated client imports (scripts/openapi-generate-check), and actionlint
// (scripts/release-check), both tool directives in go.mod. GoReleaser and
// msgp have modules of their own (goreleaser/, msgp/), their dependencies
// being at odds with these.
package tools

import _ "github.com/oapi-codegen/runtime"

package main

import "github.com/paysandbox/paysandbox/app"

// The end-to-end tests build the server as serve does, through package app;
// these names keep them short.
type (
	App        = app.App
	AppOptions = app.Options
)

// Open is app.Open.
func Open(cfg Config, opt AppOptions) (*App, error) { return app.Open(cfg, opt) }

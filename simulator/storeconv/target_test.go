package storeconv_test

import (
	"github.com/paysandbox/paysandbox/simulator/store"
	"github.com/paysandbox/paysandbox/simulator/storeconv"
)

func init() { storeconv.StoreTarget = store.ConversionTarget }

// Package cards owns the test-card catalogue read from fixtures/cards.json:
// its strict loader (Parse), the card networks with their prefix ranges,
// lengths and CVV lengths, the catalogued test cards with their BIN data,
// the lookup that tells what a number is (Catalog.Identify), the listing
// (Catalog.Cards), and the card references stored records keep
// (Catalog.RefOf, Catalog.CardFromRef).
//
// It says what a card is, never what happens to it: outcomes come from the
// scenarios. The domain types it produces (CardInfo, BinData, CardRef) and
// the pure card rules (LuhnValid, CardFingerprint, AllDigits) are the
// kernel's. Like the kernel, it imports only the standard library, uuid and
// package simulator, and holds no goroutine, lock, log or I/O: the caller
// hands it the catalogue's bytes (fixtures.Cards).
package cards

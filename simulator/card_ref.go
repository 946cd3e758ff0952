package simulator

// cardIndex maps fingerprints of catalogued numbers to their entries, and
// network enums to the networks.
type cardIndex struct {
	byFP  map[string]CardInfo // by the fingerprint's first cardRefShort characters
	byNet map[string]int
}

// cardRefShort is how much of a catalogued card's fingerprint a reference keeps.
const cardRefShort = 16

// buildRefIndex fills c.refs once the networks and cards are parsed (the
// catalogue is immutable afterwards, so readers need no lock).
func (c *CardCatalog) buildRefIndex() {
	ix := &c.refs
	ix.byFP = make(map[string]CardInfo, len(c.cards))
	for _, e := range c.cards {
		info := c.Identify(e.number)
		ix.byFP[info.Fingerprint[:cardRefShort]] = info
	}
	ix.byNet = make(map[string]int, len(c.networks))
	for i, n := range c.networks {
		ix.byNet[n.enum] = i
	}
}

// RefOf returns the reference that CardFromRef turns back into exactly info,
// and false when this catalogue cannot rebuild info (a card identified by
// another catalogue): such a card must be stored whole.
func (c *CardCatalog) RefOf(info CardInfo) (CardRef, bool) {
	if c == nil {
		return CardRef{}, false
	}
	ref := CardRef{Fingerprint: info.Fingerprint}
	if info.Catalogued && len(ref.Fingerprint) > cardRefShort {
		ref.Fingerprint = ref.Fingerprint[:cardRefShort]
	}
	if !info.Catalogued {
		ref.First6, ref.Last4, ref.Network = info.First6, info.Last4, info.Network
	}
	back, ok := c.CardFromRef(ref)
	return ref, ok && back == info
}

// CardFromRef rebuilds the CardInfo a reference was made from (RefOf); false
// when the reference names a catalogued card this catalogue does not hold.
func (c *CardCatalog) CardFromRef(ref CardRef) (CardInfo, bool) {
	if c == nil {
		return CardInfo{}, false
	}
	ix := &c.refs
	if ref.Network == "" { // catalogued
		info, ok := ix.byFP[ref.Fingerprint]
		return info, ok
	}
	info := CardInfo{Fingerprint: ref.Fingerprint, First6: ref.First6, Last4: ref.Last4,
		Network: cardNetworkOther, NetworkDisplay: cardNetworkOtherDisplay}
	if ni, ok := ix.byNet[ref.Network]; ok {
		n := c.networks[ni]
		info.Network, info.NetworkDisplay, info.CVVLength = n.enum, n.display, n.cvvLength
	} else if ref.Network != cardNetworkOther {
		return CardInfo{}, false
	}
	info.BinData = BinData{
		Network:                    info.Network,
		RegionalRestriction:        "UNKNOWN",
		AccountNumberType:          "UNKNOWN",
		AccountFundingType:         "UNKNOWN",
		PrepaidReloadableIndicator: "UNKNOWN",
		ProductUsageType:           "UNKNOWN",
		ProductCode:                info.Network,
		ProductName:                info.Network,
	}
	return info, true
}

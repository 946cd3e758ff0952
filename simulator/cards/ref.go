package cards

import "github.com/paysandbox/paysandbox/simulator"

// refIndex maps fingerprints of catalogued numbers to their entries, and
// network enums to the networks.
type refIndex struct {
	byFP  map[string]simulator.CardInfo // by the fingerprint's first refShort characters
	byNet map[string]int
}

// refShort is how much of a catalogued card's fingerprint a reference keeps.
const refShort = 16

// buildRefIndex fills c.refs once the networks and cards are parsed (the
// catalogue is immutable afterwards, so readers need no lock).
func (c *Catalog) buildRefIndex() {
	ix := &c.refs
	ix.byFP = make(map[string]simulator.CardInfo, len(c.cards))
	for _, e := range c.cards {
		info := c.Identify(e.number)
		ix.byFP[info.Fingerprint[:refShort]] = info
	}
	ix.byNet = make(map[string]int, len(c.networks))
	for i, n := range c.networks {
		ix.byNet[n.enum] = i
	}
}

// RefOf returns the reference that CardFromRef turns back into exactly info,
// and false when this catalogue cannot rebuild info (a card identified by
// another catalogue): such a card must be stored whole.
func (c *Catalog) RefOf(info simulator.CardInfo) (simulator.CardRef, bool) {
	if c == nil {
		return simulator.CardRef{}, false
	}
	ref := simulator.CardRef{Fingerprint: info.Fingerprint}
	if info.Catalogued && len(ref.Fingerprint) > refShort {
		ref.Fingerprint = ref.Fingerprint[:refShort]
	}
	if !info.Catalogued {
		ref.First6, ref.Last4, ref.Network = info.First6, info.Last4, info.Network
	}
	back, ok := c.CardFromRef(ref)
	return ref, ok && back == info
}

// CardFromRef rebuilds the CardInfo a reference was made from (RefOf);
// false when the reference names a catalogued card this catalogue does not hold.
func (c *Catalog) CardFromRef(ref simulator.CardRef) (simulator.CardInfo, bool) {
	if c == nil {
		return simulator.CardInfo{}, false
	}
	ix := &c.refs
	if ref.Network == "" { // catalogued
		info, ok := ix.byFP[ref.Fingerprint]
		return info, ok
	}
	info := simulator.CardInfo{Fingerprint: ref.Fingerprint, First6: ref.First6, Last4: ref.Last4,
		Network: networkOther, NetworkDisplay: networkOtherDisplay}
	if ni, ok := ix.byNet[ref.Network]; ok {
		n := c.networks[ni]
		info.Network, info.NetworkDisplay, info.CVVLength = n.enum, n.display, n.cvvLength
	} else if ref.Network != networkOther {
		return simulator.CardInfo{}, false
	}
	info.BinData = unknownBinData(info.Network)
	return info, true
}

package cards

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"slices"
	"strconv"
	"strings"

	"github.com/paysandbox/paysandbox/simulator"
)

// Card is one entry of the test-card catalogue, for listings.
type Card struct {
	Number, Network, Description string
}

// networkOther and networkOtherDisplay are what Identify reports for a
// number whose prefix matches no network of the catalogue.
const (
	networkOther        = "OTHER"
	networkOtherDisplay = "Other"
)

// Catalog is the parsed test-card catalogue: the card networks with their
// prefix ranges, and the catalogued test cards. It is immutable once parsed
// and safe for concurrent use.
type Catalog struct {
	networks []network
	rules    []prefixRule // longest prefix first
	cards    []entry
	byNumber map[string]int // index into cards
	refs     refIndex       // CardFromRef's lookups, built by Parse
}

// network is one network of the table.
type network struct {
	enum      string
	display   string
	lengths   []int
	cvvLength int
}

// prefixRule matches the numbers whose first length digits, read as an
// integer, lie in [lo, hi].
type prefixRule struct {
	length  int
	lo, hi  int
	network int // index into networks
}

type entry struct {
	number      string
	network     int
	description string
	binData     simulator.BinData
}

// The catalogue's file format. Decoding is strict: unknown fields are errors.
type catalogFile struct {
	Networks *[]networkFile `json:"networks"`
	Cards    *[]cardFile    `json:"cards"`
}

type networkFile struct {
	Network     string   `json:"network"`
	DisplayName string   `json:"displayName"`
	Prefixes    []string `json:"prefixes"`
	Lengths     []int    `json:"lengths"`
	CVVLength   int      `json:"cvvLength"`
}

type cardFile struct {
	Number      string       `json:"number"`
	Network     string       `json:"network"`
	Description string       `json:"description"`
	BinData     *binDataFile `json:"binData"`
}

// binDataFile is simulator.BinData without network: a catalogue card's
// network is the card's own "network" field.
type binDataFile struct {
	IssuerCountryCode          string `json:"issuerCountryCode"`
	IssuerName                 string `json:"issuerName"`
	IssuerCurrencyCode         string `json:"issuerCurrencyCode"`
	RegionalRestriction        string `json:"regionalRestriction"`
	AccountNumberType          string `json:"accountNumberType"`
	AccountFundingType         string `json:"accountFundingType"`
	PrepaidReloadableIndicator string `json:"prepaidReloadableIndicator"`
	ProductUsageType           string `json:"productUsageType"`
	ProductCode                string `json:"productCode"`
	ProductName                string `json:"productName"`
}

// Enumerations of the vendor's API that the catalogue may use.
var (
	// networkEnum is the vendor's CardNetworkEnum.
	networkEnum = enumSet("AMEX", "DANKORT", "DINERS_CLUB", "DISCOVER", "EFTPOS", "ENROUTE", "ELO",
		"HIPER", "INTERAC", "JCB", "MAESTRO", "MASTERCARD", "MIR", "PRIVATE_LABEL", "UNIONPAY", "VISA",
		"CARTES_BANCAIRES", "OTHER")
	regionalRestrictionEnum = enumSet("DOMESTIC_USE_ONLY", "NONE", "UNKNOWN")
	accountNumberTypeEnum   = enumSet("PRIMARY_ACCOUNT_NUMBER", "NETWORK_TOKEN", "DIGITAL_PAN", "UNKNOWN")
	accountFundingTypeEnum  = enumSet("CREDIT", "DEBIT", "PREPAID", "CHARGE", "DEFERRED_DEBIT", "UNKNOWN")
	prepaidReloadableEnum   = enumSet("RELOADABLE", "NON_RELOADABLE", "NOT_APPLICABLE", "UNKNOWN")
	productUsageTypeEnum    = enumSet("CONSUMER", "BUSINESS", "GOVERNMENT", "UNKNOWN")
)

// maxPrefixDigits bounds the length of a prefix or range bound.
const maxPrefixDigits = 8

func enumSet(values ...string) map[string]bool {
	m := make(map[string]bool, len(values))
	for _, v := range values {
		m[v] = true
	}
	return m
}

// Parse parses a test-card catalogue (the shape of fixtures/cards.json).
//
// Parsing is strict: unknown fields, trailing data, missing required fields,
// values outside the vendor's enumerations, malformed or overlapping prefixes,
// duplicate networks or card numbers, numbers that fail the Luhn check, that
// have a length their network does not allow, or whose prefix belongs to
// another network than the one declared, are all errors, and the error names
// the network or card at fault.
func Parse(data []byte) (*Catalog, error) {
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.DisallowUnknownFields()
	var f catalogFile
	if err := dec.Decode(&f); err != nil {
		return nil, fmt.Errorf("card catalogue: %w", err)
	}
	if _, err := dec.Token(); !errors.Is(err, io.EOF) {
		return nil, errors.New("card catalogue: unexpected data after the top-level object")
	}
	if f.Networks == nil || len(*f.Networks) == 0 {
		return nil, errors.New(`card catalogue: "networks" is missing or empty`)
	}
	if f.Cards == nil {
		return nil, errors.New(`card catalogue: "cards" is missing`)
	}

	c := &Catalog{byNumber: make(map[string]int, len(*f.Cards))}
	netIndex := make(map[string]int, len(*f.Networks))
	for i, n := range *f.Networks {
		if err := c.addNetwork(n, netIndex); err != nil {
			return nil, fmt.Errorf("card catalogue: network %d (%q): %w", i, n.Network, err)
		}
	}
	if err := checkPrefixOverlaps(c.rules, c.networks); err != nil {
		return nil, fmt.Errorf("card catalogue: %w", err)
	}
	slices.SortStableFunc(c.rules, func(a, b prefixRule) int { return b.length - a.length })

	for i, cf := range *f.Cards {
		if err := c.addCard(cf, netIndex); err != nil {
			return nil, fmt.Errorf("card catalogue: card %d (%q): %w", i, cf.Number, err)
		}
	}
	c.buildRefIndex()
	return c, nil
}

func (c *Catalog) addNetwork(n networkFile, netIndex map[string]int) error {
	_, dup := netIndex[n.Network]
	switch {
	case !networkEnum[n.Network]:
		return errors.New("network is not a CardNetworkEnum value")
	case n.Network == networkOther:
		return errors.New("OTHER is reserved for numbers that match no network")
	case dup:
		return errors.New("duplicate network")
	case strings.TrimSpace(n.DisplayName) == "":
		return errors.New("displayName is required")
	case len(n.Prefixes) == 0:
		return errors.New("prefixes is required")
	case len(n.Lengths) == 0:
		return errors.New("lengths is required")
	case n.CVVLength != 3 && n.CVVLength != 4:
		return fmt.Errorf("cvvLength %d is not 3 or 4", n.CVVLength)
	}
	seenLen := map[int]bool{}
	for _, l := range n.Lengths {
		if l < 12 || l > 19 {
			return fmt.Errorf("length %d is outside 12-19", l)
		}
		if seenLen[l] {
			return fmt.Errorf("duplicate length %d", l)
		}
		seenLen[l] = true
	}
	idx := len(c.networks)
	for _, p := range n.Prefixes {
		r, err := parsePrefix(p)
		if err != nil {
			return err
		}
		r.network = idx
		c.rules = append(c.rules, r)
	}
	lengths := slices.Clone(n.Lengths)
	slices.Sort(lengths)
	netIndex[n.Network] = idx
	c.networks = append(c.networks, network{enum: n.Network, display: n.DisplayName, lengths: lengths, cvvLength: n.CVVLength})
	return nil
}

// parsePrefix parses "4" (a single prefix) or "2221-2720" (an inclusive range
// whose bounds have the same number of digits).
func parsePrefix(p string) (prefixRule, error) {
	loS, hiS, isRange := strings.Cut(p, "-")
	if !isRange {
		hiS = loS
	}
	if !simulator.AllDigits(loS) || !simulator.AllDigits(hiS) || len(loS) > maxPrefixDigits {
		return prefixRule{}, fmt.Errorf("prefix %q is not digits or a digits-digits range of at most %d digits", p, maxPrefixDigits)
	}
	if len(loS) != len(hiS) {
		return prefixRule{}, fmt.Errorf("prefix range %q has bounds of different lengths", p)
	}
	lo, _ := strconv.Atoi(loS)
	hi, _ := strconv.Atoi(hiS)
	if lo > hi {
		return prefixRule{}, fmt.Errorf("prefix range %q is empty", p)
	}
	if loS[0] == '0' {
		return prefixRule{}, fmt.Errorf("prefix %q starts with 0", p)
	}
	return prefixRule{length: len(loS), lo: lo, hi: hi}, nil
}

// checkPrefixOverlaps rejects two prefixes of the same length that share a value:
// the longest-prefix rule could not choose between them.
func checkPrefixOverlaps(rules []prefixRule, nets []network) error {
	for i := range rules {
		for j := i + 1; j < len(rules); j++ {
			a, b := rules[i], rules[j]
			if a.length == b.length && a.lo <= b.hi && b.lo <= a.hi {
				return fmt.Errorf("prefixes of %s and %s overlap (%s and %s)",
					nets[a.network].enum, nets[b.network].enum, a, b)
			}
		}
	}
	return nil
}

func (r prefixRule) String() string {
	if r.lo == r.hi {
		return strconv.Itoa(r.lo)
	}
	return strconv.Itoa(r.lo) + "-" + strconv.Itoa(r.hi)
}

func (c *Catalog) addCard(cf cardFile, netIndex map[string]int) error {
	if !simulator.LuhnValid(cf.Number) {
		return errors.New("number is not 12-19 digits passing the Luhn check")
	}
	if _, dup := c.byNumber[cf.Number]; dup {
		return errors.New("duplicate card number")
	}
	ni, ok := netIndex[cf.Network]
	if !ok {
		return fmt.Errorf("network %q is not in networks", cf.Network)
	}
	net := c.networks[ni]
	if detected, ok := c.detect(cf.Number); !ok || detected != ni {
		got := networkOther
		if ok {
			got = c.networks[detected].enum
		}
		return fmt.Errorf("network is %s but the number's prefix is %s", cf.Network, got)
	}
	if !slices.Contains(net.lengths, len(cf.Number)) {
		return fmt.Errorf("length %d is not allowed for %s", len(cf.Number), cf.Network)
	}
	if strings.TrimSpace(cf.Description) == "" {
		return errors.New("description is required")
	}
	if cf.BinData == nil {
		return errors.New("binData is required")
	}
	bd, err := checkBinData(*cf.BinData)
	if err != nil {
		return fmt.Errorf("binData: %w", err)
	}
	bd.Network = net.enum

	c.byNumber[cf.Number] = len(c.cards)
	c.cards = append(c.cards, entry{number: cf.Number, network: ni, description: cf.Description, binData: bd})
	return nil
}

func checkBinData(b binDataFile) (simulator.BinData, error) {
	checks := []struct {
		field, value string
		enum         map[string]bool
	}{
		{"regionalRestriction", b.RegionalRestriction, regionalRestrictionEnum},
		{"accountNumberType", b.AccountNumberType, accountNumberTypeEnum},
		{"accountFundingType", b.AccountFundingType, accountFundingTypeEnum},
		{"prepaidReloadableIndicator", b.PrepaidReloadableIndicator, prepaidReloadableEnum},
		{"productUsageType", b.ProductUsageType, productUsageTypeEnum},
	}
	for _, ch := range checks {
		if !ch.enum[ch.value] {
			return simulator.BinData{}, fmt.Errorf("%s %q is not an allowed value", ch.field, ch.value)
		}
	}
	switch {
	case b.AccountFundingType == "PREPAID" && b.PrepaidReloadableIndicator == "NOT_APPLICABLE":
		return simulator.BinData{}, errors.New("prepaidReloadableIndicator NOT_APPLICABLE contradicts accountFundingType PREPAID")
	case b.AccountFundingType != "PREPAID" && b.AccountFundingType != "UNKNOWN" &&
		(b.PrepaidReloadableIndicator == "RELOADABLE" || b.PrepaidReloadableIndicator == "NON_RELOADABLE"):
		return simulator.BinData{}, fmt.Errorf("prepaidReloadableIndicator %s needs accountFundingType PREPAID", b.PrepaidReloadableIndicator)
	case b.IssuerCountryCode != "" && !isUpperAlpha(b.IssuerCountryCode, 2):
		return simulator.BinData{}, fmt.Errorf("issuerCountryCode %q is not an ISO 3166-1 alpha-2 code", b.IssuerCountryCode)
	case b.IssuerCurrencyCode != "" && !isUpperAlpha(b.IssuerCurrencyCode, 3):
		return simulator.BinData{}, fmt.Errorf("issuerCurrencyCode %q is not an ISO 4217 code", b.IssuerCurrencyCode)
	case strings.TrimSpace(b.ProductCode) == "":
		return simulator.BinData{}, errors.New("productCode is required")
	case strings.TrimSpace(b.ProductName) == "":
		return simulator.BinData{}, errors.New("productName is required")
	}
	return simulator.BinData{
		IssuerCountryCode:          b.IssuerCountryCode,
		IssuerName:                 b.IssuerName,
		IssuerCurrencyCode:         b.IssuerCurrencyCode,
		RegionalRestriction:        b.RegionalRestriction,
		AccountNumberType:          b.AccountNumberType,
		AccountFundingType:         b.AccountFundingType,
		PrepaidReloadableIndicator: b.PrepaidReloadableIndicator,
		ProductUsageType:           b.ProductUsageType,
		ProductCode:                b.ProductCode,
		ProductName:                b.ProductName,
	}, nil
}

// detect returns the index of the network whose longest prefix matches the
// number, and false when none matches.
func (c *Catalog) detect(number string) (int, bool) {
	for _, r := range c.rules { // longest first
		if len(number) < r.length {
			continue
		}
		v, err := strconv.Atoi(number[:r.length])
		if err != nil {
			continue
		}
		if v >= r.lo && v <= r.hi {
			return r.network, true
		}
	}
	return 0, false
}

// Identify tells what the sandbox knows about a card number, which the caller
// has already checked is made of digits. A catalogued number gets its
// catalogue data; any other number gets the network of its longest matching
// prefix (OTHER/Other when none matches), default binData with UNKNOWN values
// and productCode/productName set to the network enum. The returned value
// holds no full card number.
func (c *Catalog) Identify(number string) simulator.CardInfo {
	info := simulator.CardInfo{
		Fingerprint: simulator.CardFingerprint(number),
		First6:      firstN(number, 6),
		Last4:       lastN(number, 4),
	}
	if i, ok := c.byNumber[number]; ok {
		e := c.cards[i]
		net := c.networks[e.network]
		info.Network = net.enum
		info.NetworkDisplay = net.display
		info.BinData = e.binData
		info.Catalogued = true
		info.Description = e.description
		info.CVVLength = net.cvvLength
		return info
	}
	info.Network, info.NetworkDisplay = networkOther, networkOtherDisplay
	if ni, ok := c.detect(number); ok {
		info.Network, info.NetworkDisplay = c.networks[ni].enum, c.networks[ni].display
		info.CVVLength = c.networks[ni].cvvLength
	}
	info.BinData = unknownBinData(info.Network)
	return info
}

// unknownBinData is the binData of a number outside the catalogue: UNKNOWN
// values, and productCode/productName set to the network enum.
func unknownBinData(network string) simulator.BinData {
	return simulator.BinData{
		Network:                    network,
		RegionalRestriction:        "UNKNOWN",
		AccountNumberType:          "UNKNOWN",
		AccountFundingType:         "UNKNOWN",
		PrepaidReloadableIndicator: "UNKNOWN",
		ProductUsageType:           "UNKNOWN",
		ProductCode:                network,
		ProductName:                network,
	}
}

// Cards returns the catalogue entries in file order (for docs and CLI listings).
// The slice is a copy.
func (c *Catalog) Cards() []Card {
	out := make([]Card, len(c.cards))
	for i, e := range c.cards {
		out[i] = Card{
			Number:      e.number,
			Network:     c.networks[e.network].enum,
			Description: e.description,
		}
	}
	return out
}

func isUpperAlpha(s string, n int) bool {
	if len(s) != n {
		return false
	}
	for i := 0; i < len(s); i++ {
		if s[i] < 'A' || s[i] > 'Z' {
			return false
		}
	}
	return true
}

func firstN(s string, n int) string {
	if len(s) < n {
		return s
	}
	return s[:n]
}

func lastN(s string, n int) string {
	if len(s) < n {
		return s
	}
	return s[len(s)-n:]
}

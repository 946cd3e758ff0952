package httpapi

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
)

// openAPIBundle is the documents of every API version in one embedded
// file: each document's compact JSON cut into the values of its objects'
// members down to openAPIBundleDepth (a path, a component schema), each
// distinct value stored once. The versions' documents share most of their
// paths and schemas, so the bundle holds little more than one document:
// 25 KB gzipped for the four, where four gzipped documents were 64 KB
// (gzip's window cannot reach one document's copy of a schema from the
// next).
type openAPIBundle struct {
	// Values are the distinct values, as compact JSON.
	Values []json.RawMessage `json:"values"`
	// Docs is each version's document as a tree of its values.
	Docs map[string]bundleNode `json:"docs"`
}

// bundleNode is a JSON value of a document: a stored value (Value) or an
// object whose members' keys and values are Keys and Members.
type bundleNode struct {
	Value   *int         `json:"v,omitempty"`
	Keys    []string     `json:"k,omitempty"`
	Members []bundleNode `json:"m,omitempty"`
}

// openAPIBundleDepth is how deep objects are cut: the top object, its
// members' objects (paths, components) and theirs (schemas, parameters).
const openAPIBundleDepth = 3

// addDoc cuts raw (compact JSON) into the bundle as version v's document.
func (b *openAPIBundle) addDoc(v string, raw []byte) error {
	seen := map[string]int{}
	for i, val := range b.Values {
		seen[string(val)] = i
	}
	n, err := b.cut(raw, openAPIBundleDepth, seen)
	if err != nil {
		return err
	}
	if b.Docs == nil {
		b.Docs = map[string]bundleNode{}
	}
	b.Docs[v] = n
	return nil
}

func (b *openAPIBundle) cut(raw []byte, depth int, seen map[string]int) (bundleNode, error) {
	if depth == 0 || len(raw) == 0 || raw[0] != '{' {
		i, ok := seen[string(raw)]
		if !ok {
			i = len(b.Values)
			b.Values = append(b.Values, bytes.Clone(raw))
			seen[string(raw)] = i
		}
		return bundleNode{Value: &i}, nil
	}
	dec := json.NewDecoder(bytes.NewReader(raw))
	if _, err := dec.Token(); err != nil { // {
		return bundleNode{}, err
	}
	n := bundleNode{Keys: []string{}, Members: []bundleNode{}}
	for dec.More() {
		t, err := dec.Token()
		if err != nil {
			return bundleNode{}, err
		}
		key, ok := t.(string)
		if !ok {
			return bundleNode{}, fmt.Errorf("openapi bundle: a key is %v", t)
		}
		var val json.RawMessage
		if err := dec.Decode(&val); err != nil {
			return bundleNode{}, err
		}
		m, err := b.cut(val, depth-1, seen)
		if err != nil {
			return bundleNode{}, err
		}
		n.Keys, n.Members = append(n.Keys, key), append(n.Members, m)
	}
	return n, nil
}

// doc is version v's document as the compact JSON it was cut from.
func (b *openAPIBundle) doc(v string) ([]byte, error) {
	n, ok := b.Docs[v]
	if !ok {
		return nil, fmt.Errorf("openapi bundle: no document of version %s", v)
	}
	var buf bytes.Buffer
	if err := b.write(&buf, n); err != nil {
		return nil, err
	}
	return buf.Bytes(), nil
}

func (b *openAPIBundle) write(buf *bytes.Buffer, n bundleNode) error {
	if n.Value != nil {
		if *n.Value < 0 || *n.Value >= len(b.Values) {
			return errors.New("openapi bundle: a value out of range")
		}
		buf.Write(b.Values[*n.Value])
		return nil
	}
	if len(n.Keys) != len(n.Members) {
		return errors.New("openapi bundle: keys and members differ in number")
	}
	buf.WriteByte('{')
	for i, k := range n.Keys {
		if i > 0 {
			buf.WriteByte(',')
		}
		kb, err := json.Marshal(k) // as encoding/json wrote the key
		if err != nil {
			return err
		}
		buf.Write(kb)
		buf.WriteByte(':')
		if err := b.write(buf, n.Members[i]); err != nil {
			return err
		}
	}
	buf.WriteByte('}')
	return nil
}

package api

import "bytes"

// EncodeAnswer is the bytes write sends for body (the pooled encoder's), for package api_test.
func EncodeAnswer(body any) ([]byte, error) {
	var p bufferPool
	buf := p.get()
	defer p.put(buf)
	if err := buf.encode(body); err != nil {
		return nil, err
	}
	return bytes.Clone(buf.Bytes()), nil
}

// AwkwardText is awkwardText (json_append_test.go) for package api_test.
var AwkwardText = awkwardText

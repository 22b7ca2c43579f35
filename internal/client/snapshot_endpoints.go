package client

import (
	"context"
	"encoding/json"
	"net/http"
	"net/url"
	"strconv"
)

// Endpoints of snapshots (spec: Snapshots).

// ListSnapshots calls GET /snapshots: the account's snapshots, newest first, whatever their
// instance; includeInactive adds the deleted, expired and failed ones.
func (c *Client) ListSnapshots(ctx context.Context, includeInactive bool) ([]Snapshot, error) {
	q := url.Values{"include_inactive": {strconv.FormatBool(includeInactive)}}
	var out []Snapshot
	return out, c.do(ctx, request{method: http.MethodGet, path: "/snapshots", query: q}, &out)
}

// GetSnapshot calls GET /snapshots/{id}.
func (c *Client) GetSnapshot(ctx context.Context, id int64) (*Snapshot, error) {
	var out Snapshot
	return &out, c.do(ctx, request{method: http.MethodGet, path: snapshotPath(id)}, &out)
}

// UpdateSnapshot calls PATCH /snapshots/{id}.
func (c *Client) UpdateSnapshot(ctx context.Context, id int64, in UpdateSnapshotRequest) (*Snapshot, error) {
	var out Snapshot
	return &out, c.do(ctx, request{method: http.MethodPatch, path: snapshotPath(id), body: in}, &out)
}

// DeleteSnapshot calls DELETE /snapshots/{id}. Repeating it is safe: an ended snapshot answers
// as it is.
func (c *Client) DeleteSnapshot(ctx context.Context, id int64) (*Snapshot, error) {
	var out Snapshot
	return &out, c.do(ctx, request{method: http.MethodDelete, path: snapshotPath(id)}, &out)
}

// RestoreSnapshot calls POST /snapshots/{id}/restore. It overwrites the instance's disk, so it
// is repeated only where the API certainly did not process it (429, refused connection).
func (c *Client) RestoreSnapshot(ctx context.Context, id int64) (*Snapshot, error) {
	var out Snapshot
	return &out, c.do(ctx, request{method: http.MethodPost, path: snapshotPath(id) + "/restore"}, &out)
}

// ListInstanceSnapshots calls GET /instances/{id}/snapshots: the instance's creating, available
// and restoring snapshots, newest first, with its datacenter's snapshot settings from
// meta.settings.
func (c *Client) ListInstanceSnapshots(ctx context.Context, instanceID int64) (*InstanceSnapshots, error) {
	var list []Snapshot
	meta, err := c.doWithMeta(ctx, request{method: http.MethodGet, path: instancePath(instanceID) + "/snapshots"}, &list)
	if err != nil {
		return nil, err
	}
	out := &InstanceSnapshots{Snapshots: list}
	if len(meta.Raw) > 0 {
		var m struct {
			Settings *SnapshotSettings `json:"settings"`
		}
		// Lenient like decodeMeta: settings are informational.
		if json.Unmarshal(meta.Raw, &m) == nil {
			out.Settings = m.Settings
		}
	}
	return out, nil
}

// CreateSnapshot calls POST /instances/{id}/snapshots; the answer is the snapshot in
// creating. The request has no idempotency key, so it is repeated only where the API certainly
// did not process it (429, refused connection): a lost answer must not take a second snapshot.
func (c *Client) CreateSnapshot(ctx context.Context, instanceID int64, in CreateSnapshotRequest) (*Snapshot, error) {
	var out Snapshot
	return &out, c.do(ctx, request{method: http.MethodPost, path: instancePath(instanceID) + "/snapshots", body: in}, &out)
}

func snapshotPath(id int64) string { return "/snapshots/" + strconv.FormatInt(id, 10) }

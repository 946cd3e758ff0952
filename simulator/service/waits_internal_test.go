package service

import "testing"

// An abandoned wait leaves nothing behind on a payment that never changes.
func TestWaitHubReleaseRemovesAbandonedWaits(t *testing.T) {
	var h waitHub
	ch1 := h.subscribe("p1")
	ch2 := h.subscribe("p1")
	h.release("p1", ch1)
	if got := len(h.subs["p1"]); got != 1 || h.open != 1 {
		t.Fatalf("after one release: %d subscribers, %d open; want 1, 1", got, h.open)
	}
	h.release("p1", ch2)
	if _, ok := h.subs["p1"]; ok || h.open != 0 {
		t.Fatalf("after both releases: subs %v, open %d; want none, 0", h.subs, h.open)
	}
	ch3 := h.subscribe("p2")
	h.notify("p2")
	if _, open := <-ch3; open {
		t.Fatal("notify must close the channel")
	}
	h.release("p2", nil)
	if h.open != 0 || len(h.subs) != 0 {
		t.Fatalf("after notify+release: subs %v, open %d", h.subs, h.open)
	}
}

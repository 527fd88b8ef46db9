package snapshot

import (
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// FileOrderEpoch is the creation time a manifest loader gives the first object that has none;
// the n-th such object (in load order) gets FileOrderEpoch + n seconds, so that document order
// stands for the order kubectl apply would create them in.
var FileOrderEpoch = time.Date(2000, 1, 1, 0, 0, 0, 0, time.UTC)

// fileOrderSpan bounds the creation times a loader assigns: far more objects than any load
// admits, and ending in 2000, long before any real object's creation time.
const fileOrderSpan = 1 << 24 * time.Second

// FromFileOrder reports whether t is a creation time a manifest loader assigned from document
// order rather than one the object carried: where istiod picks the oldest object, a verdict
// resting on such a time rests on the order of the files, not on the cluster.
func FromFileOrder(t metav1.Time) bool {
	return !t.Time.Before(FileOrderEpoch) && t.Time.Before(FileOrderEpoch.Add(fileOrderSpan))
}

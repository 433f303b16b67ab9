package redisenv

import (
	"reflect"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"
)

// TestClientSettingsAlikeForServerAndCluster: a client of one server and a
// cluster client get the same settings, field for field, so that the two
// cannot drift apart.
func TestClientSettingsAlikeForServerAndCluster(t *testing.T) {
	s := newClientSettings(Options{PoolSize: 7, Timeout: 3 * time.Second}, nil)
	var ro redis.Options
	var co redis.ClusterOptions
	s.setOn(&ro)
	s.setOnCluster(&co)
	rv, cv := reflect.ValueOf(ro), reflect.ValueOf(co)
	set := 0
	for i := range rv.NumField() {
		name := rv.Type().Field(i).Name
		r, c := rv.Field(i), cv.FieldByName(name)
		if !c.IsValid() {
			if !r.IsZero() {
				t.Errorf("%s is set for a server, and a cluster client has no such field", name)
			}
			continue
		}
		if r.IsZero() && c.IsZero() {
			continue
		}
		set++
		var same bool
		if r.Kind() == reflect.Func {
			// Functions compare by the code and closure they point to.
			same = r.Pointer() == c.Pointer()
		} else {
			same = reflect.DeepEqual(r.Interface(), c.Interface())
		}
		if !same {
			t.Errorf("%s: %v for a server, %v for a cluster", name, r, c)
		}
	}
	for i := range cv.NumField() {
		name := cv.Type().Field(i).Name
		if _, ok := rv.Type().FieldByName(name); !ok && !cv.Field(i).IsZero() {
			t.Errorf("%s is set for a cluster, and a server's client has no such field", name)
		}
	}
	if set != 10 {
		t.Errorf("%d settings compared, want the ten clientSettings gives", set)
	}
	if ro.MaxRetries != -1 || ro.PoolSize != 7 || ro.ReadTimeout != 3*time.Second || ro.Dialer == nil {
		t.Errorf("server settings %+v", ro)
	}
}

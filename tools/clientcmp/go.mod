module github.com/rlbench/rlbench/tools/clientcmp

go 1.26.8

require (
	github.com/redis/rueidis v1.0.79
	github.com/rlbench/rlbench v0.0.0
)

require (
	github.com/HdrHistogram/hdrhistogram-go v1.4.0 // indirect
	github.com/alicebob/miniredis/v2 v2.40.0 // indirect
	github.com/cespare/xxhash/v2 v2.3.0 // indirect
	github.com/redis/go-redis/v9 v9.23.0 // indirect
	github.com/yuin/gopher-lua v1.1.1 // indirect
	go.uber.org/atomic v1.12.0 // indirect
	golang.org/x/sys v0.50.0 // indirect
	gopkg.in/yaml.v3 v3.0.1 // indirect
)

replace github.com/rlbench/rlbench => ../..

module example.com/kv/client

go 1.26

require example.com/kv/kvproto v0.0.0

replace example.com/kv/kvproto => ../kvgen/go/kvproto

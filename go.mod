module github.com/conform-dev/conform

go 1.26

require (
	github.com/google/go-cmp v0.7.0
	github.com/tidwall/gjson v1.20.4
	gopkg.in/yaml.v3 v3.0.1
)

require (
	github.com/tidwall/match v1.1.1 // indirect
	github.com/tidwall/pretty v1.3.0 // indirect
)

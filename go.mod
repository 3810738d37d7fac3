module github.com/conform-dev/conform

go 1.26

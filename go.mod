module github.com/mtune/mtune

go 1.26

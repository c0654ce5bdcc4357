// Pins the code generators that scripts/genproto.sh runs (protoc-gen-go,
// protoc-gen-go-grpc). A separate module keeps them out of the library's go.mod.
module github.com/openpathways/pathways/tools

go 1.26.0

tool (
	google.golang.org/grpc/cmd/protoc-gen-go-grpc
	google.golang.org/protobuf/cmd/protoc-gen-go
)

require (
	google.golang.org/grpc/cmd/protoc-gen-go-grpc v1.6.2 // indirect
	google.golang.org/protobuf v1.36.12 // indirect
)

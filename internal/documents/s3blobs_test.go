package documents

import (
	"net/http/httptest"
	"net/url"
	"os"
	"testing"

	"github.com/google/uuid"
	"github.com/johannesboyne/gofakes3"
	"github.com/johannesboyne/gofakes3/backend/s3mem"
)

// The S3 backend passes the conformance test against an S3 fake served
// in-process on loopback.
func TestS3Blobs(t *testing.T) {
	backend := s3mem.New()
	if err := backend.CreateBucket("underlag"); err != nil {
		t.Fatal(err)
	}
	srv := httptest.NewServer(gofakes3.New(backend).Server())
	t.Cleanup(srv.Close)
	u, _ := url.Parse(srv.URL)
	s, err := NewS3(S3Config{Endpoint: u.Host, Bucket: "underlag", Region: "eu-north-1",
		AccessKey: "test", SecretKey: "test", Prefix: "kontera/"})
	if err != nil {
		t.Fatal(err)
	}
	conformance(t, s)
}

// With KONTERA_TEST_S3_ENDPOINT and the rest of KONTERA_TEST_S3_* set, the
// conformance test runs against that store too.
func TestS3BlobsOnARealStore(t *testing.T) {
	endpoint := os.Getenv("KONTERA_TEST_S3_ENDPOINT")
	if endpoint == "" {
		t.Skip("KONTERA_TEST_S3_ENDPOINT is not set: the S3 backend ran against the in-process fake only")
	}
	s, err := NewS3(S3Config{Endpoint: endpoint, Bucket: os.Getenv("KONTERA_TEST_S3_BUCKET"),
		Region: os.Getenv("KONTERA_TEST_S3_REGION"), AccessKey: os.Getenv("KONTERA_TEST_S3_ACCESS_KEY"),
		SecretKey: os.Getenv("KONTERA_TEST_S3_SECRET_KEY"), UseSSL: os.Getenv("KONTERA_TEST_S3_USE_SSL") != "false",
		Prefix: "kontera-test-" + uuid.NewString() + "/"})
	if err != nil {
		t.Fatal(err)
	}
	conformance(t, s)
}

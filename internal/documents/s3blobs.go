package documents

import (
	"context"
	"errors"
	"io"
	"net/http"
	"strings"
	"time"

	"github.com/minio/minio-go/v7"
	"github.com/minio/minio-go/v7/pkg/credentials"
)

// S3Config is where an S3-compatible store is and how to sign for it.
type S3Config struct {
	Endpoint  string // host[:port], without a scheme
	Bucket    string
	Region    string
	AccessKey string
	SecretKey string
	UseSSL    bool
	// Prefix goes before every key: "kontera/" keeps the blobs in a
	// folder of a shared bucket.
	Prefix string
}

// S3 keeps blobs in a bucket of any S3-compatible store, for replicas
// that share no volume. github.com/minio/minio-go speaks plain S3 to any
// of them (AWS's own SDK adds request checksums many of them refuse).
type S3 struct {
	client *minio.Client
	bucket string
	prefix string
}

var _ Blobs = (*S3)(nil)

// NewS3 connects to the store of c; it sends nothing until the first call.
func NewS3(c S3Config) (*S3, error) {
	if c.Endpoint == "" || c.Bucket == "" {
		return nil, errors.New("documents: an S3 store needs KONTERA_S3_ENDPOINT and KONTERA_S3_BUCKET")
	}
	client, err := minio.New(c.Endpoint, &minio.Options{
		Creds:  credentials.NewStaticV4(c.AccessKey, c.SecretKey, ""),
		Secure: c.UseSSL, Region: c.Region, BucketLookup: minio.BucketLookupAuto,
	})
	if err != nil {
		return nil, err
	}
	return &S3{client: client, bucket: c.Bucket, prefix: c.Prefix}, nil
}

// Put stores r under key (see Blobs); a blob there already is copied
// onto itself, which renews its time. The write is conditional
// (If-None-Match: *), so a blob is never replaced where the store honours
// it; where it does not, what replaces a blob is the same bytes, since the
// key is their hash.
func (s *S3) Put(ctx context.Context, key string, r io.Reader, size int64) error {
	if !validKey(key) {
		return errBadKey
	}
	if _, err := s.client.StatObject(ctx, s.bucket, s.prefix+key, minio.StatObjectOptions{}); err == nil {
		return s.touch(ctx, key)
	} else if !missing(err) {
		return err
	}
	opts := minio.PutObjectOptions{ContentType: "application/octet-stream"}
	opts.SetMatchETagExcept("*")
	_, err := s.client.PutObject(ctx, s.bucket, s.prefix+key, r, size, opts)
	if minio.ToErrorResponse(err).StatusCode == http.StatusPreconditionFailed {
		return nil // written meanwhile by another request
	}
	return err
}

// touch renews the time an object was written, copying it onto itself
// (the one way S3 has): a row is about to name it, so the sweep must see
// it as new. The bytes stay as they are.
func (s *S3) touch(ctx context.Context, key string) error {
	_, err := s.client.CopyObject(ctx,
		minio.CopyDestOptions{Bucket: s.bucket, Object: s.prefix + key, ReplaceMetadata: true,
			UserMetadata: map[string]string{"Kontera-Named": time.Now().UTC().Format(time.RFC3339)}},
		minio.CopySrcOptions{Bucket: s.bucket, Object: s.prefix + key})
	return err
}

func missing(err error) bool {
	code := minio.ToErrorResponse(err).Code
	return code == "NoSuchKey" || code == "NotFound"
}

// Open answers the blob under key (see Blobs).
func (s *S3) Open(ctx context.Context, key string) (Blob, error) {
	if !validKey(key) {
		return nil, errBadKey
	}
	obj, err := s.client.GetObject(ctx, s.bucket, s.prefix+key, minio.GetObjectOptions{})
	if err != nil {
		return nil, err
	}
	info, err := obj.Stat()
	if err != nil {
		obj.Close()
		if missing(err) {
			return nil, ErrNoBlob
		}
		return nil, err
	}
	return objectBlob{Object: obj, size: info.Size}, nil
}

type objectBlob struct {
	*minio.Object
	size int64
}

func (b objectBlob) Size() int64 { return b.size }

// Delete removes the blob under key (see Blobs).
func (s *S3) Delete(ctx context.Context, key string) error {
	if !validKey(key) {
		return errBadKey
	}
	err := s.client.RemoveObject(ctx, s.bucket, s.prefix+key, minio.RemoveObjectOptions{})
	if missing(err) {
		return nil
	}
	return err
}

// Each lists every blob under the prefix (see Blobs).
func (s *S3) Each(ctx context.Context, fn func(key string, written time.Time) error) error {
	ctx, cancel := context.WithCancel(ctx)
	defer cancel() // stops the listing when fn fails
	for obj := range s.client.ListObjects(ctx, s.bucket, minio.ListObjectsOptions{Prefix: s.prefix, Recursive: true}) {
		if obj.Err != nil {
			return obj.Err
		}
		key := strings.TrimPrefix(obj.Key, s.prefix)
		if !validKey(key) {
			continue
		}
		if err := fn(key, obj.LastModified); err != nil {
			return err
		}
	}
	return ctx.Err()
}

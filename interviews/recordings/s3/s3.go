// Package s3 keeps the interviews' recordings in S3-compatible object
// storage — AWS S3, MinIO, Cloudflare R2, Google Cloud Storage's
// interoperability mode — through github.com/minio/minio-go/v7. It
// implements recordings.Objects: workers upload there when a session
// ends, and the web app reads from there (ranged requests as players
// seek) whichever machine recorded.
package s3

import (
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"net/url"
	"strings"

	"github.com/minio/minio-go/v7"
	"github.com/minio/minio-go/v7/pkg/credentials"

	"github.com/viva-interviews/viva/interviews"
	"github.com/viva-interviews/viva/interviews/recordings"
)

// Options say where the recordings are kept and with what credentials.
type Options struct {
	// Endpoint is the service's URL: https://s3.amazonaws.com (or a
	// region's, https://s3.eu-west-1.amazonaws.com),
	// https://ACCOUNT.r2.cloudflarestorage.com, https://storage.googleapis.com,
	// or a MinIO server's such as http://127.0.0.1:9000. Required.
	Endpoint string
	// Bucket holds the recordings; it must exist. Required.
	Bucket string
	// Region is the bucket's region (us-east-1 when empty; "auto" for R2).
	Region string
	// AccessKeyID and SecretAccessKey sign every request (AWS signature
	// version 4). Required.
	AccessKeyID, SecretAccessKey string
}

// Store is a bucket of recordings. It is safe for concurrent use.
type Store struct {
	client *minio.Client
	bucket string
	where  string
}

var _ recordings.Objects = (*Store)(nil)

// help ends the errors about the settings: what to set.
const help = "set VIVA_RECORDINGS_S3_ENDPOINT, VIVA_RECORDINGS_S3_BUCKET, AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY (and VIVA_RECORDINGS_S3_REGION when not us-east-1)"

// Open checks the options, connects and checks that the bucket exists
// and the credentials may read it. Its errors say what to fix and never
// hold the secret key.
func Open(ctx context.Context, o Options) (*Store, error) {
	u, err := url.Parse(o.Endpoint)
	switch {
	case err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" || (u.Path != "" && u.Path != "/"):
		return nil, fmt.Errorf("s3: the endpoint %q is not a URL such as https://s3.amazonaws.com or http://127.0.0.1:9000: %s", o.Endpoint, help)
	case o.Bucket == "":
		return nil, errors.New("s3: no bucket given: " + help)
	case o.AccessKeyID == "" || o.SecretAccessKey == "":
		return nil, errors.New("s3: no access key given: " + help)
	}
	region := o.Region
	if region == "" {
		region = "us-east-1"
	}
	client, err := minio.New(u.Host, &minio.Options{
		Creds:  credentials.NewStaticV4(o.AccessKeyID, o.SecretAccessKey, ""),
		Secure: u.Scheme == "https", Region: region,
	})
	if err != nil {
		return nil, fmt.Errorf("s3: %s: %w", o.Endpoint, err)
	}
	s := &Store{client: client, bucket: o.Bucket, where: "bucket " + o.Bucket + " at " + u.Scheme + "://" + u.Host}
	ok, err := client.BucketExists(ctx, o.Bucket)
	switch {
	case err != nil:
		return nil, fmt.Errorf("s3: cannot read %s: %w: check the endpoint, the region and that the access key may read the bucket", s.where, err)
	case !ok:
		return nil, fmt.Errorf("s3: %s does not exist: create it, or name another in VIVA_RECORDINGS_S3_BUCKET", s.where)
	}
	return s, nil
}

// Where names the bucket and the endpoint, without credentials.
func (s *Store) Where() string { return s.where }

// Put implements recordings.Objects.
func (s *Store) Put(ctx context.Context, name string, r io.Reader, size int64) error {
	_, err := s.client.PutObject(ctx, s.bucket, name, r, size, minio.PutObjectOptions{ContentType: interviews.RecordingContentType})
	if err != nil {
		return fmt.Errorf("s3: writing %s: %w", name, err)
	}
	return nil
}

// Open implements recordings.Objects: the object reads lazily, each seek
// a ranged request.
func (s *Store) Open(ctx context.Context, name string) (recordings.Object, error) {
	o, err := s.client.GetObject(ctx, s.bucket, name, minio.GetObjectOptions{})
	if err != nil {
		return nil, s.readError(name, err)
	}
	info, err := o.Stat()
	if err != nil {
		o.Close()
		return nil, s.readError(name, err)
	}
	return object{Object: o, info: recordings.Info{Name: name, Size: info.Size, ModTime: info.LastModified}}, nil
}

// readError wraps a failed read; fs.ErrNotExist when there is no such
// object.
func (s *Store) readError(name string, err error) error {
	if minio.ToErrorResponse(err).Code == minio.NoSuchKey {
		return fmt.Errorf("s3: %s: %w", name, fs.ErrNotExist)
	}
	return fmt.Errorf("s3: reading %s: %w", name, err)
}

// object is an open recording.
type object struct {
	*minio.Object
	info recordings.Info
}

func (o object) Info() recordings.Info { return o.info }

// Remove implements recordings.Objects.
func (s *Store) Remove(ctx context.Context, name string) error {
	if err := s.client.RemoveObject(ctx, s.bucket, name, minio.RemoveObjectOptions{}); err != nil {
		if minio.ToErrorResponse(err).Code == minio.NoSuchKey {
			return nil
		}
		return fmt.Errorf("s3: removing %s: %w", name, err)
	}
	return nil
}

// List implements recordings.Objects.
func (s *Store) List(ctx context.Context, prefix string) ([]recordings.Info, error) {
	var out []recordings.Info
	for o := range s.client.ListObjects(ctx, s.bucket, minio.ListObjectsOptions{Prefix: prefix, Recursive: true}) {
		if o.Err != nil {
			return nil, fmt.Errorf("s3: listing %s: %w", s.where, o.Err)
		}
		if !strings.HasSuffix(o.Key, "/") {
			out = append(out, recordings.Info{Name: o.Key, Size: o.Size, ModTime: o.LastModified})
		}
	}
	return out, nil
}

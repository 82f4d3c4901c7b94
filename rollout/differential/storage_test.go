package differential

import (
	"fmt"

	appsv1 "k8s.io/api/apps/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/runtime/serializer/protobuf"
	serverstorage "k8s.io/apiserver/pkg/server/storage"
	"k8s.io/kubernetes/pkg/api/legacyscheme"
	"k8s.io/kubernetes/pkg/apis/apps"
)

// The real path of a Deployment from a create request to the controller's
// cache, after decoding and defaulting: converted to the internal version,
// encoded by the API server's storage codec (protobuf, apps/v1, as etcd
// holds it), decoded again and converted back to apps/v1, then sent to the
// controller as protobuf (kube-controller-manager's content type) and
// decoded by it.
var (
	storageCodec = func() runtime.Codec {
		c, _, err := serverstorage.NewStorageCodec(serverstorage.StorageCodecConfig{
			StorageMediaType:  runtime.ContentTypeProtobuf,
			StorageSerializer: legacyscheme.Codecs,
			StorageVersion:    appsv1.SchemeGroupVersion,
			MemoryVersion:     schema.GroupVersion{Group: apps.GroupName, Version: runtime.APIVersionInternal},
		})
		if err != nil {
			panic(err)
		}
		return c
	}()
	wire = protobuf.NewSerializer(legacyscheme.Scheme, legacyscheme.Scheme)
)

// storedByServer returns d (defaulted) as the controller reads it after
// the API server stored it.
func storedByServer(d *appsv1.Deployment) (*appsv1.Deployment, error) {
	in := toInternal(d.DeepCopy())
	b, err := runtime.Encode(storageCodec, in)
	if err != nil {
		return nil, fmt.Errorf("storage encode: %w", err)
	}
	obj, _, err := storageCodec.Decode(b, nil, nil)
	if err != nil {
		return nil, fmt.Errorf("storage decode: %w", err)
	}
	out := toExternal(obj).(*appsv1.Deployment)
	out.SetGroupVersionKind(appsv1.SchemeGroupVersion.WithKind("Deployment"))
	b, err = runtime.Encode(wire, out)
	if err != nil {
		return nil, fmt.Errorf("wire encode: %w", err)
	}
	var read appsv1.Deployment
	if _, _, err := wire.Decode(b, nil, &read); err != nil {
		return nil, fmt.Errorf("wire decode: %w", err)
	}
	return &read, nil
}

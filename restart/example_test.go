package restart_test

import (
	"fmt"
	"time"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"

	"github.com/deploymath/deploymath/restart"
)

// An opted-in Deployment uses a ConfigMap. The first release records its
// checksum; an edit, once its grace period has passed, restarts the pods with
// one merge patch.
func ExampleEngine() {
	start := time.Date(2030, 1, 1, 12, 0, 0, 0, time.UTC)
	cm := &corev1.ConfigMap{
		ObjectMeta: metav1.ObjectMeta{Namespace: "shop", Name: "settings", ResourceVersion: "1"},
		Data:       map[string]string{"LOG_LEVEL": "info"},
	}
	web := &appsv1.Deployment{
		ObjectMeta: metav1.ObjectMeta{Namespace: "shop", Name: "web", ResourceVersion: "1",
			Annotations: map[string]string{"deploymath.io/restart-on-config-change": "true"}},
		Spec: appsv1.DeploymentSpec{Template: corev1.PodTemplateSpec{Spec: corev1.PodSpec{
			Containers: []corev1.Container{{Name: "app", EnvFrom: []corev1.EnvFromSource{{
				ConfigMapRef: &corev1.ConfigMapEnvSource{LocalObjectReference: corev1.LocalObjectReference{Name: "settings"}},
			}}}},
		}}},
	}
	e, err := restart.New(restart.DefaultOptions())
	if err != nil {
		panic(err)
	}
	_ = e.Observe(cm, start)
	_ = e.Observe(web, start)

	for _, d := range e.Release(start.Add(5 * time.Second)).Decisions {
		fmt.Printf("%s restart=%v\n%s\n", d.Key(), d.Restart, d.PatchJSON)
		patched, _ := d.Patch.Apply(web) // what the API server does with the patch
		web = patched.(*appsv1.Deployment)
		web.ResourceVersion = "2"
		_ = e.Observe(web, start.Add(5*time.Second)) // the informer's echo: no new change
	}

	edited := cm.DeepCopy()
	edited.ResourceVersion = "2"
	edited.Data["LOG_LEVEL"] = "debug"
	_ = e.Observe(edited, start.Add(20*time.Second))
	fmt.Println("at 24s:", len(e.Release(start.Add(24*time.Second)).Decisions), "decisions")
	for _, d := range e.Release(start.Add(25 * time.Second)).Decisions {
		fmt.Printf("%s restart=%v\n%s\n", d.Key(), d.Restart, d.PatchJSON)
	}
	fmt.Printf("%+v\n", e.Counters())
	// Output:
	// deployment/shop/web restart=false
	// {"metadata":{"annotations":{"deploymath.io/config-checksums":"{\"configmap/shop/settings\":\"fa29c7bde74b11a2\"}"}}}
	// at 24s: 0 decisions
	// deployment/shop/web restart=true
	// {"metadata":{"annotations":{"deploymath.io/config-checksums":"{\"configmap/shop/settings\":\"115f4ef9542df413\"}"}},"spec":{"template":{"metadata":{"annotations":{"deploymath.io/restarted-at":"2030-01-01T12:00:25Z"}}}}}
	// {ResourceVersions:4 Configs:1 Workloads:1 AnnotationUpdates:2 Restarts:1 ChangesProcessed:3 ChangesWaiting:0}
}

func ExampleReferences() {
	spec := &corev1.PodSpec{
		Volumes: []corev1.Volume{{Name: "tls", VolumeSource: corev1.VolumeSource{
			Secret: &corev1.SecretVolumeSource{SecretName: "web-tls"}}}},
		Containers: []corev1.Container{{Name: "app", Env: []corev1.EnvVar{{
			Name: "FLAG", ValueFrom: &corev1.EnvVarSource{ConfigMapKeyRef: &corev1.ConfigMapKeySelector{
				LocalObjectReference: corev1.LocalObjectReference{Name: "flags"}, Key: "flag", Optional: new(true)}},
		}}}},
	}
	for _, r := range restart.References("shop", spec) {
		fmt.Println(r.Key(), "optional:", r.Optional)
	}
	// Output:
	// configmap/shop/flags optional: true
	// secret/shop/web-tls optional: false
}

func ExampleChecksumConfigMap() {
	a := &corev1.ConfigMap{Data: map[string]string{"ab": "c"}}
	b := &corev1.ConfigMap{Data: map[string]string{"a": "bc"}}
	fmt.Println(restart.ChecksumConfigMap(a) != restart.ChecksumConfigMap(b))
	fmt.Println(restart.XingChecksumConfigMap(&corev1.ConfigMap{Data: map[string]string{"a": "b"}}))
	// Output:
	// true
	// db4a7ecb114bc66c
}

func ExampleXingKeys() {
	o := restart.XingKeys()
	fmt.Println(o.EnabledAnnotation, "=", o.EnabledValue)
	fmt.Println(o.ChecksumsAnnotation)
	fmt.Println(o.RestartedAtAnnotation)
	fmt.Println(o.Checksum, o.GracePeriod, o.CheckInterval)
	// Output:
	// com.xing.deployment-restart = enabled
	// com.xing.deployment-restart.applied-config-checksums
	// com.xing.deployment-restart.timestamp
	// xing 5s 500ms
}

// A Deployment recorded ConfigMap settings and ConfigMap old; its template
// now uses settings, which was edited, and Secret tls. The informer's old
// version of settings is the recorded one, so the changed keys are known.
func ExampleDiffChecksums() {
	before := &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Namespace: "shop", Name: "settings"},
		Data: map[string]string{"LOG_LEVEL": "info", "PORT": "8080"}}
	after := before.DeepCopy()
	after.Data["LOG_LEVEL"] = "debug"
	tls := &corev1.Secret{ObjectMeta: metav1.ObjectMeta{Namespace: "shop", Name: "tls"},
		Data: map[string][]byte{"tls.crt": []byte("…")}}
	annotation := restart.FormatChecksums(map[string]string{
		"configmap/shop/settings": restart.ChecksumConfigMap(before),
		"configmap/shop/old":      "5ca1ab1e0ddba11c",
	})
	current := map[string]runtime.Object{"configmap/shop/settings": after, "secret/shop/tls": tls}
	previous := map[string]runtime.Object{"configmap/shop/settings": before}
	refs := []restart.Ref{
		{Kind: restart.KindConfigMap, Namespace: "shop", Name: "settings"},
		{Kind: restart.KindSecret, Namespace: "shop", Name: "tls"},
	}

	d, err := restart.DiffChecksums(restart.DefaultOptions(), refs, annotation,
		func(r restart.Ref) (runtime.Object, error) { return current[r.Key()], nil },
		func(r restart.Ref) (runtime.Object, error) { return previous[r.Key()], nil })
	if err != nil {
		panic(err)
	}
	for _, c := range d.Changes {
		switch c.Change {
		case restart.ConfigAdded:
			fmt.Println("added  ", c.Config, c.Current)
		case restart.ConfigChanged:
			fmt.Println("changed", c.Config, c.Recorded, "→", c.Current, "keys", c.Keys)
		case restart.ConfigRemoved:
			fmt.Println("removed", c.Config)
		}
	}
	fmt.Println("restart:", d.Restart)
	fmt.Println(d.Annotation)
	// Output:
	// removed configmap/shop/old
	// changed configmap/shop/settings 06d7aa5be3e258e4 → db4072bde0bd68bd keys [LOG_LEVEL]
	// added   secret/shop/tls 084bf3741544df74
	// restart: true
	// {"configmap/shop/settings":"db4072bde0bd68bd","secret/shop/tls":"084bf3741544df74"}
}

// Command bluegreen runs the blue/green controller against the cluster of
// the current kubeconfig (install config/crd.yaml first):
//
//	go run ./cmd/bluegreen
package main

import (
	"fmt"
	"os"

	"github.com/deploymath/deploymath/examples/bluegreen"
	v1 "github.com/deploymath/deploymath/examples/bluegreen/api/v1"
	"k8s.io/apimachinery/pkg/runtime"
	clientgoscheme "k8s.io/client-go/kubernetes/scheme"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/log/zap"
)

func main() {
	ctrl.SetLogger(zap.New())
	if err := run(); err != nil {
		fmt.Fprintln(os.Stderr, "bluegreen:", err)
		os.Exit(1)
	}
}

func run() error {
	scheme := runtime.NewScheme()
	if err := clientgoscheme.AddToScheme(scheme); err != nil {
		return err
	}
	if err := v1.AddToScheme(scheme); err != nil {
		return err
	}
	mgr, err := ctrl.NewManager(ctrl.GetConfigOrDie(), ctrl.Options{Scheme: scheme})
	if err != nil {
		return err
	}
	// The core/v1 events recorder (deprecated in favour of events.k8s.io/v1):
	// its aggregation is the one the simulator models.
	//lint:ignore SA1019 see above
	r := &bluegreen.Reconciler{Client: mgr.GetClient(), Recorder: mgr.GetEventRecorderFor("bluegreen")}
	if err := r.SetupWithManager(mgr); err != nil {
		return err
	}
	return mgr.Start(ctrl.SetupSignalHandler())
}

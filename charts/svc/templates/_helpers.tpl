{{/*
The release's name prefix: every object is <fullname>-<component>. The default, the release
name, gives svc-apiserver, svc-operator and svc-engine for `helm install svc`.
*/}}
{{- define "svc.fullname" -}}
{{- if .Values.fullnameOverride -}}
{{- .Values.fullnameOverride | trunc 40 | trimSuffix "-" -}}
{{- else -}}
{{- .Release.Name | trunc 40 | trimSuffix "-" -}}
{{- end -}}
{{- end -}}

{{/* Labels every object carries. */}}
{{- define "svc.labels" -}}
helm.sh/chart: {{ printf "%s-%s" .Chart.Name .Chart.Version | replace "+" "_" }}
app.kubernetes.io/instance: {{ .Release.Name }}
app.kubernetes.io/managed-by: {{ .Release.Service }}
app.kubernetes.io/part-of: svc
app.kubernetes.io/version: {{ .Chart.AppVersion | quote }}
{{- end -}}

{{/*
The selector labels of one component (pass a dict with "root" and "component"). The name label
is svc-<component> whatever the release is called: the operator's NetworkPolicies of account
namespaces select the API server's pods by app.kubernetes.io/name=svc-apiserver.
*/}}
{{- define "svc.selectorLabels" -}}
app.kubernetes.io/name: svc-{{ .component }}
app.kubernetes.io/instance: {{ .root.Release.Name }}
{{- end -}}

{{/* Labels of one component's objects: the common ones plus its selector labels. */}}
{{- define "svc.componentLabels" -}}
{{ include "svc.labels" .root }}
app.kubernetes.io/name: svc-{{ .component }}
app.kubernetes.io/component: {{ .component }}
{{- end -}}

{{/* An image reference: <repository>/<name>:<tag>, the tag defaulting to the appVersion. */}}
{{- define "svc.image" -}}
{{- $tag := .root.Values.image.tag | default .root.Chart.AppVersion -}}
{{- printf "%s/%s:%s" .root.Values.image.repository .name $tag -}}
{{- end -}}

{{/* The Secret holding the internal secret and the engine key. */}}
{{- define "svc.secretName" -}}
{{- .Values.secrets.existingSecret | default (printf "%s-secrets" (include "svc.fullname" .)) -}}
{{- end -}}

{{/* The Secret holding the MongoDB URI, and its key. */}}
{{- define "svc.mongoSecretName" -}}
{{- .Values.mongodb.existingSecret | default (printf "%s-mongodb" (include "svc.fullname" .)) -}}
{{- end -}}
{{- define "svc.mongoSecretKey" -}}
{{- if .Values.mongodb.existingSecret -}}{{ .Values.mongodb.existingSecretKey }}{{- else -}}mongodb-uri{{- end -}}
{{- end -}}

{{/* In-cluster URLs of the API server's front doors and of the engine. */}}
{{- define "svc.apiserverHost" -}}
{{- printf "%s-apiserver.%s.svc" (include "svc.fullname" .) .Release.Namespace -}}
{{- end -}}
{{- define "svc.engineUrl" -}}
{{- if .Values.engine.enabled -}}
{{- printf "http://%s-engine.%s.svc:6333" (include "svc.fullname" .) .Release.Namespace -}}
{{- else -}}
{{- required "externalQdrant.url is required when engine.enabled is false" .Values.externalQdrant.url -}}
{{- end -}}
{{- end -}}

{{/* The home region: the first of .Values.regions. */}}
{{- define "svc.homeRegion" -}}
{{- (first .Values.regions).name -}}
{{- end -}}

{{/* The restricted pod security context every platform pod runs with. */}}
{{- define "svc.podSecurityContext" -}}
runAsNonRoot: true
runAsUser: 10001
runAsGroup: 10001
fsGroup: 10001
seccompProfile:
  type: RuntimeDefault
{{- end -}}
{{- define "svc.containerSecurityContext" -}}
allowPrivilegeEscalation: false
readOnlyRootFilesystem: true
capabilities:
  drop: ["ALL"]
{{- end -}}

{{/* Scheduling fields of a component's pods (pass its values). */}}
{{- define "svc.scheduling" -}}
{{- with .nodeSelector }}
nodeSelector:
  {{- toYaml . | nindent 2 }}
{{- end }}
{{- with .tolerations }}
tolerations:
  {{- toYaml . | nindent 2 }}
{{- end }}
{{- with .affinity }}
affinity:
  {{- toYaml . | nindent 2 }}
{{- end }}
{{- end -}}

{{/* The metrics listener's environment (pass a dict with "root" and "portVar"). */}}
{{- define "svc.metricsEnv" -}}
{{- if .root.Values.metrics.enabled }}
- { name: {{ .portVar }}, value: {{ .root.Values.metrics.port | quote }} }
{{- else }}
- { name: {{ .portVar }}, value: "-1" }
{{- end }}
{{- end -}}

{{/* The metrics container port, when metrics are on. */}}
{{- define "svc.metricsPort" -}}
{{- if .Values.metrics.enabled }}
- { name: metrics, containerPort: {{ .Values.metrics.port }}, protocol: TCP }
{{- end }}
{{- end -}}

{{/* Pod annotations: Prometheus scrape hints (when asked for), then the component's own. */}}
{{- define "svc.podAnnotations" -}}
{{- if and .root.Values.metrics.enabled .root.Values.metrics.scrapeAnnotations }}
prometheus.io/scrape: "true"
prometheus.io/port: {{ .root.Values.metrics.port | quote }}
prometheus.io/path: /metrics
{{- end }}
{{- with .extra }}
{{ toYaml . }}
{{- end }}
{{- end -}}

// The Pod Security Standards' `restricted` profile (kubernetes.io/docs/concepts/security/pod-security-standards,
// baseline's controls and restricted's), as the API server's admission checks a pod in a namespace
// labelled `pod-security.kubernetes.io/enforce: restricted`: each control read the way the policy
// reads it (a container's setting wins over the pod's). No API server runs here, so the tests hold
// pod specs to this list. Pod specs are plain objects as written in YAML or sent on the wire.

type Capabilities = { add?: string[]; drop?: string[] };
type Seccomp = { type?: string };
type SecurityContext = {
  privileged?: boolean;
  allowPrivilegeEscalation?: boolean;
  runAsNonRoot?: boolean;
  runAsUser?: number;
  capabilities?: Capabilities;
  seccompProfile?: Seccomp;
  procMount?: string;
  windowsOptions?: { hostProcess?: boolean };
  seLinuxOptions?: { type?: string; user?: string; role?: string };
  appArmorProfile?: { type?: string };
  sysctls?: { name: string }[];
};
type Container = { name: string; securityContext?: SecurityContext; ports?: { hostPort?: number }[] };
export type PodSpecLike = {
  hostNetwork?: boolean;
  hostPID?: boolean;
  hostIPC?: boolean;
  securityContext?: SecurityContext;
  containers: Container[];
  initContainers?: Container[];
  ephemeralContainers?: Container[];
  volumes?: Record<string, unknown>[];
};

const RESTRICTED_VOLUMES = new Set([
  'configMap',
  'csi',
  'downwardAPI',
  'emptyDir',
  'ephemeral',
  'persistentVolumeClaim',
  'projected',
  'secret',
]);
const SAFE_SYSCTLS = new Set([
  'kernel.shm_rmid_forced',
  'net.ipv4.ip_local_port_range',
  'net.ipv4.ip_unprivileged_port_start',
  'net.ipv4.tcp_syncookies',
  'net.ipv4.ping_group_range',
  'net.ipv4.ip_local_reserved_ports',
  'net.ipv4.tcp_keepalive_time',
  'net.ipv4.tcp_fin_timeout',
  'net.ipv4.tcp_keepalive_intvl',
  'net.ipv4.tcp_keepalive_probes',
]);
const SELINUX_TYPES = new Set(['', 'container_t', 'container_init_t', 'container_kvm_t', 'container_engine_t']);

/** What `restricted` refuses in this pod spec, one line per control broken; empty when admitted. */
export function restrictedViolations(pod: PodSpecLike): string[] {
  const out: string[] = [];
  const podSc = pod.securityContext ?? {};
  const containers = [...(pod.initContainers ?? []), ...pod.containers, ...(pod.ephemeralContainers ?? [])];
  // Baseline.
  for (const field of ['hostNetwork', 'hostPID', 'hostIPC'] as const) if (pod[field]) out.push(`host namespaces: ${field}`);
  if (podSc.windowsOptions?.hostProcess) out.push('hostProcess: pod');
  for (const v of pod.volumes ?? []) {
    if ('hostPath' in v) out.push(`hostPath volume ${String(v.name)}`);
    const type = Object.keys(v).find((k) => k !== 'name');
    if (type && !RESTRICTED_VOLUMES.has(type)) out.push(`volume type ${type} (${String(v.name)})`);
  }
  for (const s of podSc.sysctls ?? []) if (!SAFE_SYSCTLS.has(s.name)) out.push(`sysctl ${s.name}`);
  const seLinux = (sc: SecurityContext, who: string) => {
    const o = sc.seLinuxOptions;
    if (o && (!SELINUX_TYPES.has(o.type ?? '') || o.user || o.role)) out.push(`seLinuxOptions: ${who}`);
  };
  seLinux(podSc, 'pod');
  const unconfined = (t?: string) => t === 'Unconfined';
  if (unconfined(podSc.appArmorProfile?.type)) out.push('appArmorProfile Unconfined: pod');
  // Restricted, pod level: non-root and seccomp may be said once for all containers.
  if (podSc.runAsUser === 0) out.push('runAsUser 0: pod');
  const allowedSeccomp = (t?: string) => t === 'RuntimeDefault' || t === 'Localhost';
  if (podSc.seccompProfile && !allowedSeccomp(podSc.seccompProfile.type)) out.push(`seccompProfile ${podSc.seccompProfile.type}: pod`);
  for (const c of containers) {
    const sc = c.securityContext ?? {};
    const who = `container ${c.name}`;
    if (sc.privileged) out.push(`privileged: ${who}`);
    if (sc.windowsOptions?.hostProcess) out.push(`hostProcess: ${who}`);
    for (const p of c.ports ?? []) if (p.hostPort) out.push(`hostPort ${p.hostPort}: ${who}`);
    if (sc.procMount && sc.procMount !== 'Default') out.push(`procMount ${sc.procMount}: ${who}`);
    seLinux(sc, who);
    if (unconfined(sc.appArmorProfile?.type)) out.push(`appArmorProfile Unconfined: ${who}`);
    // Restricted allows adding NET_BIND_SERVICE alone (baseline's wider list does not apply).
    for (const cap of sc.capabilities?.add ?? []) if (cap !== 'NET_BIND_SERVICE') out.push(`capability ${cap} added: ${who}`);
    if (!(sc.capabilities?.drop ?? []).includes('ALL')) out.push(`capabilities not dropped (drop: [ALL]): ${who}`);
    if (sc.allowPrivilegeEscalation !== false) out.push(`allowPrivilegeEscalation not false: ${who}`);
    if ((sc.runAsNonRoot ?? podSc.runAsNonRoot) !== true) out.push(`runAsNonRoot not true: ${who}`);
    if (sc.runAsUser === 0) out.push(`runAsUser 0: ${who}`);
    const seccomp = sc.seccompProfile ?? podSc.seccompProfile;
    if (!allowedSeccomp(seccomp?.type)) out.push(`seccompProfile not RuntimeDefault or Localhost: ${who}`);
  }
  return out;
}

export const CLUSTER_DISCOVERY = Symbol('ClusterDiscovery');

/** Domain resolution step 4: the platform domain as the local cluster knows it. */
export interface ClusterDiscovery {
  /** undefined when nothing was found. */
  discoverDomain(): Promise<string | undefined>;
}

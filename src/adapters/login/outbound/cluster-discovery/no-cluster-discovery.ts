import { ClusterDiscovery } from '../../../../application/login/ports/cluster-discovery.port';

/**
 * The default cluster discovery finds nothing, so domain resolution ends with its
 * configuration error. A cluster-aware adapter plugs in behind the same port.
 */
export class NoClusterDiscovery implements ClusterDiscovery {
  async discoverDomain(): Promise<string | undefined> {
    return undefined;
  }
}

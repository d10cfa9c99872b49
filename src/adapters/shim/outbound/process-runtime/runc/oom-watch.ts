import { nativeAddon } from '../../../helpers/native-addon';

/**
 * Reports the OOM kills in a container's cgroup v1 memory directory (ContainerCgroup).
 * cgroup v1 only, as on the hosts skiff runs on now; on cgroup v2 nothing is watched.
 * Returns whether a watch started.
 */
export function watchOom(memoryV1Dir: string, onOom: () => void): boolean {
  try {
    nativeAddon().watchOom(memoryV1Dir, onOom);
    return true;
  } catch {
    // No memory controller there (or no permission): OOM kills go unreported, exits do not.
    return false;
  }
}

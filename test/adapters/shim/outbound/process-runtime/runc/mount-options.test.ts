import { parseMountOptions } from '../../../../../../src/adapters/shim/outbound/process-runtime/runc/mount-options';

describe('rootfs mount options as mount(2) takes them', () => {
  it("passes an overlay's options through as data", () => {
    expect(parseMountOptions(['index=off', 'workdir=/w', 'upperdir=/u', 'lowerdir=/a:/b'])).toEqual({
      flags: 0,
      data: 'index=off,workdir=/w,upperdir=/u,lowerdir=/a:/b',
    });
  });

  it('turns flag words into MS_* bits, later words overriding earlier ones', () => {
    expect(parseMountOptions(['rbind', 'ro'])).toEqual({ flags: 0x1000 | 0x4000 | 0x1, data: '' });
    expect(parseMountOptions(['ro', 'rw', 'nosuid', 'nodev'])).toEqual({ flags: 0x2 | 0x4, data: '' });
    expect(parseMountOptions(['bind', 'defaults', 'mode=755'])).toEqual({ flags: 0x1000, data: 'mode=755' });
  });
});

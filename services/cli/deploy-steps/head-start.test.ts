import { describe, expect, it } from 'vitest';
import { deployArgs } from './head-start.js';

describe("the head start's reading of `pitch deploy`'s arguments", () => {
  it('reads the folder, the project and the health timeout as the command does', () => {
    expect(deployArgs(['deploy'], {})).toEqual({ dir: '.', project: undefined, healthTimeoutMs: 30_000 });
    expect(deployArgs(['deploy', 'app', '--project', 'shop', '--no-live'], {})).toEqual({
      dir: 'app',
      project: 'shop',
      healthTimeoutMs: 30_000,
    });
    expect(deployArgs(['deploy', '--project=shop', '--note', 'a b', 'app'], {})?.dir).toBe('app');
    expect(deployArgs(['deploy', '--health-timeout', '5'], {})?.healthTimeoutMs).toBe(5_000);
    expect(deployArgs(['deploy'], { PITCH_HEALTH_TIMEOUT: '12' })?.healthTimeoutMs).toBe(12_000);
  });

  it('starts nothing for another command, --force, an option it does not know, two folders or a bad timeout', () => {
    for (const argv of [
      ['validate', '.'],
      ['deploy', '--force'],
      ['deploy', '--api', 'https://x'],
      ['deploy', '-h'],
      ['deploy', 'a', 'b'],
      ['deploy', '--project'],
      ['deploy', '--health-timeout', '0'],
      ['deploy', '--health-timeout=soon'],
    ])
      expect(deployArgs(argv, {}), argv.join(' ')).toBeNull();
    expect(deployArgs(['deploy'], { PITCH_HEALTH_TIMEOUT: '-1' })).toBeNull();
  });
});

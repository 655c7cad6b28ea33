// The benchmark's measure of its load generator (bench/load.ts): the CPU time of the children the
// benchmark process has reaped (wrk), and the report's flag for a saturated generator, under which
// a warm read's rate and latency are the generator's limit, not the server's (issue 13, the 4x p99).
import { spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { generatorCores, statCpuSeconds, statReapedChildrenCpuSeconds } from '../../bench/load.js';
import { generatorLine } from '../../bench/report.js';

const onLinux = process.platform === 'linux';

describe("the load generator's CPU time", () => {
  it.runIf(onLinux)('counts a child once it is reaped, and not this process', () => {
    const self = () => readFileSync('/proc/self/stat', 'utf8');
    const before = statReapedChildrenCpuSeconds(self());
    const ownBefore = statCpuSeconds(self());
    // 0.6 s of the child's own CPU time, however busy the machine (spawnSync waits for it, as Node
    // does for wrk before 'exit').
    const child = spawnSync(process.execPath, ['-e', 'while (process.cpuUsage().user < 600_000);']);
    expect(child.status).toBe(0);
    const spent = statReapedChildrenCpuSeconds(self()) - before;
    expect(spent).toBeGreaterThanOrEqual(0.4);
    expect(spent).toBeLessThan(5);
    // This process waited without spinning: the child's time is not its own.
    expect(statCpuSeconds(self()) - ownBefore).toBeLessThan(spent);
  });

  it('reads cutime and cstime past a process name with spaces and parentheses', () => {
    // pid (comm) state ppid pgrp session tty tpgid flags minflt cminflt majflt cmajflt utime stime cutime cstime
    const stat = '42 (a (b) c) S 1 42 42 0 -1 4194560 10 20 0 0 150 50 230 70 20 0 1';
    expect(statCpuSeconds(stat)).toBe(2);
    expect(statReapedChildrenCpuSeconds(stat)).toBe(3);
  });

  it('flags a warm load saturated only when both the server and its floor saturated the generator', () => {
    const load = (clientCpuSeconds: number) => ({ requestsPerSecond: 1, p99Ms: 1, seconds: 10, clientCpuSeconds });
    expect(generatorCores(load(9.6))).toBe(0.96);
    expect(generatorLine(load(9.6), load(9.9))).toBe('0.96 / 0.99, saturated both times');
    expect(generatorLine(load(9.6), load(7))).toBe('0.96 / 0.7');
    expect(generatorLine({ requestsPerSecond: 1, p99Ms: 1, seconds: 10 }, load(9))).toBeNull();
  });
});

import os from 'node:os';

/** The machine a run was measured on. */
export interface MachineInfo {
  readonly nproc: number;
  readonly cpuModel: string;
  readonly memoryGb: number;
  readonly node: string;
  readonly platform: string;
  /** 1-minute load average when the run ended: other work on the machine skews wall-clock numbers. */
  readonly loadAverage: number;
}

export function machineInfo(): MachineInfo {
  return {
    nproc: os.availableParallelism(),
    cpuModel: os.cpus()[0]?.model.trim() ?? 'unknown',
    memoryGb: Math.round((os.totalmem() / 1024 ** 3) * 10) / 10,
    node: process.version,
    platform: `${os.platform()} ${os.release()} ${os.arch()}`,
    loadAverage: Math.round((os.loadavg()[0] ?? 0) * 100) / 100,
  };
}

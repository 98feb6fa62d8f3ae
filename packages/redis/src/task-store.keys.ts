/** The Redis keys of a {@link RedisTaskStore}, all under one prefix. */
export class TaskStoreKeys {
  constructor(private readonly prefix: string) {}

  /** STRING: the StoredTask JSON; expires once the task finished. */
  task(taskId: string): string {
    return `${this.prefix}task:${taskId}`;
  }

  /**
   * STRING: the replica that reserved a task id (`SET NX`); kept as long as the task is (no expiry
   * while it runs, the finished-task retention once it ended).
   */
  taskId(taskId: string): string {
    return `${this.prefix}id:${taskId}`;
  }

  /** ZSET: the task ids of a scope, scored by creation time (the list_tasks index). */
  scope(scope: string): string {
    return `${this.prefix}scope:${scope}`;
  }

  /** SET: the running task ids a replica owns (what a survivor fails when the replica is lost). */
  owned(replicaId: string): string {
    return `${this.prefix}owned:${replicaId}`;
  }

  /** STRING with expiry: present while the replica is alive. */
  lease(replicaId: string): string {
    return `${this.prefix}lease:${replicaId}`;
  }

  /**
   * STRING: the replica's fencing token, a lease epoch that only grows: taken (INCR) when the
   * replica starts, raised by the survivor that judges it lost. Every write of the replica carries
   * the epoch it holds and is refused once this key holds another (the replica was fenced).
   */
  epoch(replicaId: string): string {
    return `${this.prefix}epoch:${replicaId}`;
  }

  /** SET: the replicas that own (or owned) running tasks. */
  replicas(): string {
    return `${this.prefix}replicas`;
  }

  /** STRING set NX: the one survivor that claimed a lost task. */
  lostClaim(taskId: string): string {
    return `${this.prefix}lost:${taskId}`;
  }

  /** STRING: the e-stop latch of every replica (`EstopLatch` JSON, MAC'd like task records). */
  estop(): string {
    return `${this.prefix}estop`;
  }

  /**
   * STRING: the holder of one slot of an actuator's lease (`{task_id, replica, epoch}`, MAC'd like
   * task records); deleted when the task ends.
   */
  actuator(actuator: string, slot: number): string {
    return `${this.prefix}actuator:${actuator}:${slot}`;
  }

  /** Pub/sub channel on which a latch of the e-stop is announced (`<latch JSON> <MAC>`). */
  estopChannel(): string {
    return `${this.prefix}estop-latched`;
  }

  /** STRING with expiry: the task id another name (a SEP-2663 handle) stands for. */
  alias(alias: string): string {
    return `${this.prefix}alias:${alias}`;
  }

  /** Pub/sub channel on which every task write announces its task id (`tasks://` updates). */
  changesChannel(): string {
    return `${this.prefix}changes`;
  }

  /** Pub/sub channel of the cancel requests for a replica's tasks. */
  cancelChannel(replicaId: string): string {
    return `${this.prefix}cancel:${replicaId}`;
  }
}

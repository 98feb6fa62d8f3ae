import { type TaskInfoJson } from '../models/task-info.model.js';

/** The scope of tasks started without authentication: the one anonymous principal. */
export const ANONYMOUS_SCOPE = 'anonymous';

/** The `error_code` of a task whose replica died while it ran (marked failed by a survivor). */
export const REPLICA_LOST = 'REPLICA_LOST';

/**
 * The `code` of the error a store write is refused with once this replica was fenced: it was
 * judged lost (paused or cut off past its lease) and a survivor took its tasks over.
 */
export const REPLICA_FENCED = 'REPLICA_FENCED';

/** One task as a {@link TaskStore} holds it: the wire TaskInfo plus who owns it. */
export interface StoredTask {
  /** Who may see it: the principal that started it, or {@link ANONYMOUS_SCOPE}. */
  readonly scope: string;
  /** The id of the replica running the task (the one whose TaskManager can cancel it). */
  readonly owner: string;
  /** The `seq` of the task's last event (0 before the first). */
  readonly lastSeq: number;
  /** The TaskInfo JSON exactly as `get_task` answers it. */
  readonly task: TaskInfoJson;
}

/** Called with a task of a lost replica, on exactly one surviving replica, after it was marked failed. */
export type LostTaskListener = (failed: StoredTask) => void | Promise<void>;

/** The e-stop latch as the replicas share it: latched (by whom, when) or released. */
export interface EstopLatch {
  readonly latched: boolean;
  /** The principal that latched or released it (`anonymous` without authentication). */
  readonly by: string;
  /** When, as an ISO 8601 time. */
  readonly at: string;
}

/** The `error_code` of a start refused because another task holds the actuator (on any replica). */
export const ACTUATOR_BUSY = 'ACTUATOR_BUSY';

/** The answer of {@link TaskStore.acquireActuator}: taken, or who holds every slot. */
export type ActuatorClaim =
  | { readonly taken: true }
  | { readonly taken: false; readonly holders: readonly { task_id: string; replica: string }[] };

/** Called when a replica latched the e-stop (this one's own latch included). */
export type EstopListener = (latch: EstopLatch) => void;

/** What a cancel request names: the task and the replica that owns it (a {@link StoredTask} will do). */
export interface CancelTarget {
  /** The id of the replica running the task. */
  readonly owner: string;
  readonly task: { readonly task_id: string };
}

/**
 * How a {@link CarriedTaskWrite} ended: written (or a finished outcome kept), refused because this
 * replica was fenced, or failed (the store did not answer; the error).
 */
export type CarriedOutcome = 'written' | 'fenced' | { readonly error: unknown };

/**
 * A task write ({@link TaskStore.put}) an outbox append carries in its own store round trip, built
 * by {@link TaskStore.carriedWrite}: the keys and arguments the store's script takes (opaque to
 * everyone but the store and its outbox), and its outcome, settled by the outbox once its round
 * trip answered (the first settle wins; `done` rejects with the store's `REPLICA_FENCED` error or
 * the failure).
 */
export interface CarriedTaskWrite {
  readonly keys: readonly string[];
  readonly args: readonly string[];
  readonly done: Promise<void>;
  settle(outcome: CarriedOutcome): void;
}

/** Called when another replica asks this one to cancel a task it owns. */
export type CancelRequestListener = (taskId: string) => void;

/**
 * Where the tasks of every replica are kept, so that any replica answers `get_task`, `list_tasks`
 * and `cancel_task` for any task of the same principal (the issue-18 scale-out). Without a store
 * configured nothing uses it: the TaskManager alone answers, as in one process.
 *
 * Adapters: {@link InMemoryTaskStore} (one process, tests) and `RedisTaskStore`
 * (`@robot-mcp-kit/redis`, with leases, cross-replica cancellation and a lost-replica sweeper).
 */
export interface TaskStore {
  /** The id of this replica: the `owner` of the tasks it puts. */
  readonly replicaId: string;
  /**
   * Reserves a new task id across every replica (atomically: true for exactly one caller) for as
   * long as the store keeps the task; false when the id is taken. A store without it (one process)
   * leaves ids to the TaskManager.
   */
  reserveId?(taskId: string): Promise<boolean>;
  /**
   * How long a reservation of {@link reserveId} lasts unless a task write keeps it (ms; the store's
   * finished-task retention). Ids reserved ahead are used well within it. Undefined: 60 s is assumed.
   */
  readonly idReservationMs?: number;
  /**
   * Releases the reservations of ids this replica reserved ahead and did not use, in one round trip:
   * only a reservation held by this replica and named by no task record is removed. Called on close
   * (bounded in time by the caller); resolves with how many were released.
   */
  releaseIds?(taskIds: readonly string[]): Promise<number>;
  /** Creates or replaces a task; a finished one expires after the store's retention. */
  put(entry: StoredTask): Promise<void>;
  /**
   * The {@link put} of `entry` (this replica's own task), not sent: an outbox append of the same
   * store carries it in its round trip (one script writes the state and appends the event). A store
   * without it has its writes put on their own. Whoever builds one settles it once its round trip
   * answered (`settle`); `done` tells the writer.
   */
  carriedWrite?(entry: StoredTask): CarriedTaskWrite;
  /** The task in `scope`, or undefined (unknown, expired, or of another scope). */
  get(scope: string, taskId: string): Promise<StoredTask | undefined>;
  /** The tasks of `scope` in creation order. */
  list(scope: string): Promise<StoredTask[]>;
  /**
   * Records `alias` (an opaque, high-entropy handle such as a SEP-2663 wire `taskId`) as another
   * name of `taskId` for `ttlMs`, so that any replica finds the task by it.
   */
  putAlias(alias: string, taskId: string, ttlMs: number): Promise<void>;
  /** The task id an alias names, or undefined (unknown or expired). Check the scope with {@link get}. */
  getAlias(alias: string): Promise<string | undefined>;
  /** Asks the task's owner replica to cancel it; resolves once the request is sent. */
  requestCancel(entry: CancelTarget): Promise<void>;
  /** Observes cancel requests for tasks this replica owns; returns the function that stops it. */
  onCancelRequest(listener: CancelRequestListener): () => void;
  /** Observes tasks of lost replicas this replica marked failed; returns the function that stops it. */
  onLostTask(listener: LostTaskListener): () => void;
  /**
   * Observes this replica being fenced (its lease was taken over while it was paused or cut off):
   * from then on the store refuses its writes. Returns the function that stops it.
   */
  onFenced?(listener: () => void): () => void;
  /**
   * Takes a new lease (a new epoch) after this replica was fenced, once the bodies of the tasks a
   * survivor took over stopped: its earlier writes stay refused, its new ones are accepted.
   */
  rejoin?(): Promise<void>;
  /**
   * Observes every write of a task by any replica (called with its id; this replica's own writes
   * included), e.g. to announce `tasks://` updates of other replicas' tasks. Returns the function
   * that stops it.
   */
  onTaskChange?(listener: (taskId: string) => void): () => void;
  /**
   * Whether this replica still owns its tasks: at once while its lease is surely held, else after
   * one renewal (false once fenced; true when Redis does not answer, which cannot tell).
   */
  leaseHeld?(): Promise<boolean>;
  /**
   * The fencing token this replica's other writes carry (its outbox appends): the store key of its
   * lease epoch and the epoch it holds; undefined before its lease was taken.
   */
  fencingToken?(): { key: string; epoch: string } | undefined;
  /**
   * The e-stop latch every replica reads before an actuating tool starts (undefined: never set, i.e.
   * released). A store without it leaves the latch to each process. A record the store cannot
   * authenticate reads as latched: a forged latch never releases the robot.
   */
  readEstop?(): Promise<EstopLatch | undefined>;
  /** Sets or releases the e-stop latch for every replica. */
  writeEstop?(latch: EstopLatch): Promise<void>;
  /**
   * Observes every latch of the e-stop by any replica (this one's own included), so that each
   * replica stops its own movers. Returns the function that stops it.
   */
  onEstop?(listener: EstopListener): () => void;
  /**
   * Takes one of `slots` leases of `actuator` for `taskId` across every replica (atomically: a
   * slot has at most one holder), fenced like the task writes; a slot whose holder replica's lease
   * expired (or was fenced) is taken over. Refused with the holders when every slot is held.
   * @throws RobotMcpKitError {@link REPLICA_FENCED} once this replica was fenced
   */
  acquireActuator?(actuator: string, slots: number, taskId: string): Promise<ActuatorClaim>;
  /** Releases the slot of `actuator` that `taskId` holds (nothing when it holds none). */
  releaseActuator?(actuator: string, taskId: string): Promise<void>;
  /** Stops leases and subscriptions and releases the connection. Idempotent. */
  close(): Promise<void>;
}

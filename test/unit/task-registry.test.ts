/**
 * The task contract (issue 20, finding 1): every registered task says how its target is authorized.
 * A task whose arguments name a record checks it (checkTarget); one that names none is
 * `instanceWide`, takes no keyword argument that could name a record, and needs an admin-level
 * scope. The peer's `kwargs.user_id` never reaches a task.
 */
import { describe, expect, it } from "vitest";
import { isAdminLevelScope } from "../../src/auth/scopes.ts";
import { AppError } from "../../src/platform/errors.ts";
import { checkPeerUserId, instanceWide, taskKwargs } from "../../src/modules/tasks/params.ts";
import { registeredTasks } from "../../src/modules/tasks/task-registry.ts";

const tasks = registeredTasks();

describe("registered tasks", () => {
  it.each(tasks.map((t) => [t.name, t] as const))("%s declares how its target is authorized", (_name, task) => {
    expect(typeof task.checkTarget).toBe("function");
  });

  const wide = tasks.filter((t) => t.checkTarget === instanceWide);
  it("instance-wide tasks are the ones without a record in their arguments", () => {
    expect(wide.map((t) => t.name).sort()).toEqual(["enforce_retention", "generate_correlations", "purge_deleted"]);
  });

  it.each(wide.map((t) => [t.name, t] as const))("%s (instance-wide) refuses any keyword argument but user_id and needs an admin-level scope", (_name, task) => {
    for (const kwargs of [{ feed_id: 1 }, { hunt_id: 1 }, { event_uuid: "x" }, { org_id: 2 }]) {
      expect(() => task.checkParams([], kwargs, ["body"]), JSON.stringify(kwargs)).toThrow(AppError);
    }
    expect(() => task.checkParams([1], {}, ["body"])).toThrow(AppError);
    expect(() => task.checkParams([], { user_id: 7 }, ["body"])).not.toThrow();
    expect(task.requiredScopes.some(isAdminLevelScope)).toBe(true);
  });
});

describe("the peer's kwargs.user_id", () => {
  it("may only name the schedule's owner", () => {
    expect(() => checkPeerUserId({ hunt_id: 1 }, 5, ["body"])).not.toThrow();
    expect(() => checkPeerUserId({ user_id: 5 }, 5, ["body"])).not.toThrow();
    const err = (() => {
      try {
        checkPeerUserId({ user_id: 6 }, 5, ["body"]);
      } catch (e) {
        return e as AppError;
      }
    })();
    expect(err?.status).toBe(422);
    expect(err?.toBody().detail).toMatchObject([{ loc: ["body", "kwargs", "user_id"] }]);
  });

  it("is never passed to a task", () => {
    expect(taskKwargs({ hunt_id: 3, user_id: 9 })).toEqual({ hunt_id: 3 });
    expect(taskKwargs({ feed_id: 4 })).toEqual({ feed_id: 4 });
  });
});

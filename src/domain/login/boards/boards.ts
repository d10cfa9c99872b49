/** Board-tool ids are snowflakes (beyond 2^53): kept as strings everywhere. */
export interface Project {
  readonly id: string;
  readonly name: string;
}

export interface Board {
  readonly id: string;
  readonly name: string;
  readonly projectId: string;
}

export interface BoardListing {
  readonly id: string;
  readonly name: string;
  readonly project: Project;
}

/**
 * Every board with its project, in the order the projects came, then the boards. A
 * board whose project is not in the reply is still listed, under its project id.
 */
export function boardsWithProjects(projects: readonly Project[], boards: readonly Board[]): BoardListing[] {
  const order = new Map(projects.map((p, i) => [p.id, i] as const));
  const byId = new Map(projects.map((p) => [p.id, p] as const));
  return boards
    .map((board, i) => ({ board, i, rank: order.get(board.projectId) ?? projects.length }))
    .sort((a, b) => a.rank - b.rank || a.i - b.i)
    .map(({ board }) => ({
      id: board.id,
      name: board.name,
      project: byId.get(board.projectId) ?? { id: board.projectId, name: '' },
    }));
}

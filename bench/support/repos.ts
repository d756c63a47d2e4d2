/** The repositories the drain benchmark seeds, and payloads moved into them. */

export interface BenchRepo {
  id: number;
  owner: string;
  name: string;
}

export function benchRepo(index: number): BenchRepo {
  return { id: 2_000_001 + index, owner: "bench-org", name: `repo-${index + 1}` };
}

/** A webhook payload (from `test/support/payloads.ts`) as if sent from `repo`. */
export function inRepo(payload: Record<string, any>, repo: BenchRepo): Record<string, any> {
  payload.repository = {
    ...payload.repository,
    id: repo.id,
    name: repo.name,
    full_name: `${repo.owner}/${repo.name}`,
    owner: { ...payload.repository.owner, login: repo.owner },
    // The fake GitHub's node ids (test/support/payloads.ts), for a repository the fake holds by this id (RemoteFake.know).
    node_id: `R_${repo.id}`,
  };
  if (payload.issue) payload.issue.node_id = `I_${repo.id * 1_000_000 + Number(payload.issue.number)}`;
  return payload;
}

/** The repositories as RemoteFake.know takes them. */
export const known = (repos: BenchRepo[]) => repos.map((r) => ({ full: `${r.owner}/${r.name}`, id: r.id }));

import { useOp } from '../api/hooks.js';

// The "Project" filter of a page that shows every project of the workspace or one (analytics, the
// pipeline): "" is all of them. A label and a select; the page lays them out.

export function ProjectSelect({ id, value, onChange }: { id: string; value: string; onChange: (projectId: string) => void }) {
  const projects = useOp('listProjects');
  return (
    <>
      <label htmlFor={id}>Project</label>
      <select id={id} value={value} onChange={(e) => onChange(e.target.value)}>
        <option value="">All projects</option>
        {projects.data?.map((p) => (
          <option key={p.id} value={p.id}>
            {p.name}
          </option>
        ))}
      </select>
    </>
  );
}

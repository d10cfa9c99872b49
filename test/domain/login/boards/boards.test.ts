import { boardsWithProjects } from '../../../../src/domain/login/boards/boards';

describe('boards with their projects', () => {
  const projects = [
    { id: '9007199254740993', name: 'B project' },
    { id: '2', name: 'A project' },
  ];

  it('lists every board with its project, in project order then board order, ids untouched', () => {
    const listing = boardsWithProjects(projects, [
      { id: '11', name: 'second of 2', projectId: '2' },
      { id: '12345678901234567890', name: 'big', projectId: '9007199254740993' },
      { id: '10', name: 'third of 2', projectId: '2' },
    ]);
    expect(listing.map((b) => [b.id, b.project.id])).toEqual([
      ['12345678901234567890', '9007199254740993'],
      ['11', '2'],
      ['10', '2'],
    ]);
    expect(listing[0].project.name).toBe('B project');
  });

  it('keeps a board whose project is missing from the reply', () => {
    expect(boardsWithProjects([], [{ id: '1', name: 'orphan', projectId: '77' }])).toEqual([
      { id: '1', name: 'orphan', project: { id: '77', name: '' } },
    ]);
  });
});

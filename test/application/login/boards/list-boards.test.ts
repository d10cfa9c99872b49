import { ListBoards } from '../../../../src/application/login/boards/list-boards.use-case';
import { SetBoardApiKey } from '../../../../src/application/login/boards/set-board-api-key.use-case';
import { ConfigurationError, IdentityError } from '../../../../src/domain/shared/errors';
import { skiffTestbed } from '../../../../src/infrastructure/login/testing/skiff-testbed';
import { aRecord } from '../../../support/tokens';

describe('boards list', () => {
  it('exchanges the access token, keeps the board token, lists every board with its project, ids as strings', async () => {
    const h = skiffTestbed();
    h.cache.records.set('example.com', aRecord());
    const boards = await h.get(ListBoards).execute({});
    expect(boards).toEqual([
      { id: '9007199254740993', name: 'Roadmap', project: { id: '1357924680135792468', name: 'Platform' } },
    ]);
    expect(h.boardTool.exchanges).toEqual(['access-1']);
    expect(h.boardCredentials.records.get('example.com')).toEqual({ boardToken: 'board-token-1' });
  });

  it('uses the stored board token without exchanging again', async () => {
    const h = skiffTestbed();
    h.cache.records.set('example.com', aRecord());
    await h.get(ListBoards).execute({});
    await h.get(ListBoards).execute({});
    expect(h.boardTool.exchanges).toHaveLength(1);
  });

  it('re-exchanges once on a 401, then succeeds', async () => {
    const h = skiffTestbed();
    h.cache.records.set('example.com', aRecord());
    h.boardCredentials.records.set('example.com', { boardToken: 'stale' });
    await expect(h.get(ListBoards).execute({})).resolves.toHaveLength(1);
    expect(h.boardTool.exchanges).toHaveLength(1);
    expect(h.boardTool.listings).toEqual([{ bearer: 'stale' }, { bearer: 'board-token-1' }]);
  });

  it('only once: a second 401 is an identity error', async () => {
    const h = skiffTestbed();
    h.cache.records.set('example.com', aRecord());
    h.boardTool.accepted.add = () => h.boardTool.accepted; // the tool issues tokens it then refuses
    await expect(h.get(ListBoards).execute({})).rejects.toBeInstanceOf(IdentityError);
    expect(h.boardTool.exchanges).toHaveLength(2);
  });

  it('no exchange endpoint (404): a configuration error pointing to set-api-key; then the key is used', async () => {
    const h = skiffTestbed();
    h.cache.records.set('example.com', aRecord());
    h.boardTool.exchangeAvailable = false;
    const err = (await h
      .get(ListBoards)
      .execute({})
      .catch((e: unknown) => e)) as Error;
    expect(err).toBeInstanceOf(ConfigurationError);
    expect(err.message).toContain('skiff boards set-api-key');
    h.boardTool.apiKey = 'key-1';
    await h.get(SetBoardApiKey).execute({}, ' key-1\n');
    await expect(h.get(ListBoards).execute({})).resolves.toHaveLength(1);
    expect(h.boardTool.listings.at(-1)).toEqual({ apiKey: 'key-1' });
  });

  it('needs a login to exchange', async () => {
    const h = skiffTestbed();
    await expect(h.get(ListBoards).execute({})).rejects.toThrow(/not logged in/);
  });
});

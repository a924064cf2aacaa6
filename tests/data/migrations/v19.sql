PRAGMA foreign_keys=OFF;
BEGIN TRANSACTION;
CREATE TABLE meta (
  key   TEXT PRIMARY KEY,
  value TEXT NOT NULL
) STRICT;
INSERT INTO meta VALUES('tokenizer_version','1');
INSERT INTO meta VALUES('fingerprint_version','1');
INSERT INTO meta VALUES('schema_version','19');
INSERT INTO meta VALUES('written_by','mnemo 0.1.0');
CREATE TABLE projects (
  id         INTEGER PRIMARY KEY,
  name       TEXT NOT NULL UNIQUE,
  root_path  TEXT,
  created_at INTEGER NOT NULL
) STRICT;
INSERT INTO projects VALUES(1,'default',NULL,1795248000000);
CREATE TABLE config (
  project_id INTEGER NOT NULL REFERENCES projects(id) ON DELETE CASCADE,
  key        TEXT NOT NULL,
  value      TEXT NOT NULL,
  updated_at INTEGER NOT NULL,
  PRIMARY KEY (project_id, key)
) STRICT;
INSERT INTO config VALUES(1,'memory.excerpt_cap','4096',1795248000000);
INSERT INTO config VALUES(1,'memory.review_threshold','0.6',1795248000000);
INSERT INTO config VALUES(1,'user.name','fixture',1795248000000);
CREATE TABLE files (
  id           INTEGER PRIMARY KEY,
  project_id   INTEGER NOT NULL REFERENCES projects(id) ON DELETE CASCADE,
  path         TEXT NOT NULL,
  language     TEXT,
  role         TEXT NOT NULL DEFAULT 'source'
               CHECK (role IN ('source','test','doc','config','build','generated','vendored','marker','lock')),
  content_hash TEXT NOT NULL,
  size         INTEGER NOT NULL,
  lines        INTEGER NOT NULL,
  mtime        INTEGER,
  rank         REAL NOT NULL DEFAULT 0,
  indexed_at   INTEGER NOT NULL, decl_only INTEGER NOT NULL DEFAULT 0,
  UNIQUE (project_id, path)
) STRICT;
INSERT INTO files VALUES(1,1,'cart/session.py','python','source','0123456789abcdef0123456789abcdef',120,20,1795248000000,1.0,1795334400000,0);
INSERT INTO files VALUES(2,1,'orders/checkout.py','python','source','55555555555555555555555555555555',90,6,1795420800000,0.0,1795420800000,0);
CREATE TABLE symbols (
  id             INTEGER PRIMARY KEY,
  file_id        INTEGER NOT NULL REFERENCES files(id) ON DELETE CASCADE,
  name           TEXT NOT NULL,
  qualified_name TEXT NOT NULL,
  kind           TEXT NOT NULL,
  start_line     INTEGER NOT NULL,
  end_line       INTEGER NOT NULL,
  start_byte     INTEGER,
  end_byte       INTEGER,
  signature      TEXT,
  docstring      TEXT,
  content_hash   TEXT,
  rank           REAL NOT NULL DEFAULT 0
) STRICT;
INSERT INTO symbols VALUES(1,1,'Session','Session','class',1,20,0,120,'class Session','A cart session.','11111111111111111111111111111111',0.0);
INSERT INTO symbols VALUES(2,1,'refresh','Session.refresh','method',10,20,60,120,'def refresh(self)','Extend the session by its delay.','22222222222222222222222222222222',0.0);
INSERT INTO symbols VALUES(3,2,'checkout','checkout','function',3,6,30,90,'def checkout(order)',NULL,'66666666666666666666666666666666',0.0);
CREATE TABLE edges (
  id         INTEGER PRIMARY KEY,
  project_id INTEGER NOT NULL REFERENCES projects(id) ON DELETE CASCADE,
  src_kind   TEXT NOT NULL CHECK (src_kind IN ('file','symbol')),
  src_id     INTEGER NOT NULL,
  dst_kind   TEXT NOT NULL CHECK (dst_kind IN ('file','symbol')),
  dst_id     INTEGER,
  dst_name   TEXT,
  kind       TEXT NOT NULL CHECK (kind IN ('import','call','inherit','reference')),
  weight     REAL NOT NULL DEFAULT 1
, dst_key TEXT) STRICT;
INSERT INTO edges VALUES(1,1,'file',2,'file',NULL,'.ledger','import',1.0,NULL);
INSERT INTO edges VALUES(2,1,'symbol',3,'symbol',NULL,'order.pay','call',1.0,'pay');
INSERT INTO edges VALUES(3,1,'symbol',3,'symbol',NULL,'Receipt','call',1.0,'Receipt');
INSERT INTO edges VALUES(4,1,'symbol',3,'symbol',NULL,'ns::Ledger::total','call',1.0,'total');
CREATE TABLE chunks (
  id           INTEGER PRIMARY KEY,
  file_id      INTEGER REFERENCES files(id) ON DELETE CASCADE,
  symbol_id    INTEGER REFERENCES symbols(id) ON DELETE CASCADE,
  doc_id       INTEGER REFERENCES docs(id) ON DELETE CASCADE,
  start_line   INTEGER NOT NULL,
  end_line     INTEGER NOT NULL,
  text         TEXT NOT NULL,
  content_hash TEXT NOT NULL
) STRICT;
INSERT INTO chunks VALUES(1,1,NULL,NULL,1,9,replace('import server.db\n\nclass Session:\n    """A cart session."""\n','\n',char(10)),'33333333333333333333333333333333');
INSERT INTO chunks VALUES(2,1,2,NULL,10,20,replace('    def refresh(self):\n        """Extend the session by its delay."""\n        self.expires = now() + (self.delay or 30)\n','\n',char(10)),'44444444444444444444444444444444');
INSERT INTO chunks VALUES(3,2,3,NULL,3,6,replace('def checkout(order):\n    order.pay()\n    return Receipt()\n','\n',char(10)),'77777777777777777777777777777777');
CREATE TABLE memory_tags (
  tag       TEXT NOT NULL,
  memory_id INTEGER NOT NULL REFERENCES memories(id) ON DELETE CASCADE,
  PRIMARY KEY (tag, memory_id)
) STRICT, WITHOUT ROWID;
INSERT INTO memory_tags VALUES('auth',1);
INSERT INTO memory_tags VALUES('cart',1);
INSERT INTO memory_tags VALUES('db',3);
CREATE TABLE memory_paths (
  path      TEXT NOT NULL,
  memory_id INTEGER NOT NULL REFERENCES memories(id) ON DELETE CASCADE,
  PRIMARY KEY (path, memory_id)
) STRICT, WITHOUT ROWID;
INSERT INTO memory_paths VALUES('cart',1);
INSERT INTO memory_paths VALUES('cart/session.py',1);
INSERT INTO memory_paths VALUES('server',3);
CREATE TABLE citations (
  id           INTEGER PRIMARY KEY,
  memory_id    INTEGER NOT NULL REFERENCES memories(id) ON DELETE CASCADE,
  seq          INTEGER NOT NULL,
  path         TEXT NOT NULL,
  symbol       TEXT,
  start_line   INTEGER,
  end_line     INTEGER,
  content_hash TEXT,
  stale        INTEGER NOT NULL DEFAULT 0,
  checked_at   INTEGER, text TEXT, dirty INTEGER NOT NULL DEFAULT 0,
  UNIQUE (memory_id, seq)
) STRICT;
INSERT INTO citations VALUES(1,1,0,'cart/session.py','Session.refresh',10,20,'abc123',0,NULL,NULL,1);
INSERT INTO citations VALUES(2,1,1,'cart/tests.py',NULL,NULL,NULL,NULL,0,NULL,NULL,0);
CREATE TABLE links (
  id            INTEGER PRIMARY KEY,
  src_id        INTEGER NOT NULL REFERENCES memories(id) ON DELETE CASCADE,
  kind          TEXT NOT NULL CHECK (kind IN
                  ('caused_by','supersedes','relates_to','contradicts','derived_from','about')),
  dst_memory_id INTEGER REFERENCES memories(id) ON DELETE CASCADE,
  dst_ref       TEXT,
  note          TEXT,
  created_at    INTEGER NOT NULL,
  CHECK ((dst_memory_id IS NULL) <> (dst_ref IS NULL))
) STRICT;
INSERT INTO links VALUES(1,2,'caused_by',1,NULL,'the outage',1795244401000);
INSERT INTO links VALUES(2,2,'about',NULL,'file:server/db.c',NULL,1795244402000);
INSERT INTO links VALUES(3,2,'supersedes',3,NULL,NULL,1795244403000);
CREATE TABLE tasks (
  id          INTEGER PRIMARY KEY,
  project_id  INTEGER NOT NULL REFERENCES projects(id) ON DELETE CASCADE,
  tracker     TEXT NOT NULL,
  external_id TEXT NOT NULL,
  title       TEXT NOT NULL,
  body        TEXT,
  state       TEXT,
  url         TEXT,
  created_at  INTEGER NOT NULL,
  updated_at  INTEGER NOT NULL, author TEXT, labels TEXT, closed_at INTEGER,
  UNIQUE (project_id, tracker, external_id)
) STRICT;
CREATE TABLE docs (
  id           INTEGER PRIMARY KEY,
  project_id   INTEGER NOT NULL REFERENCES projects(id) ON DELETE CASCADE,
  path         TEXT NOT NULL,
  kind         TEXT NOT NULL,       -- adr, wiki, readme, design, ...
  title        TEXT,
  body         TEXT,
  content_hash TEXT NOT NULL,
  updated_at   INTEGER NOT NULL, url TEXT,
  UNIQUE (project_id, path)
) STRICT;
CREATE TABLE dialogs (
  id          INTEGER PRIMARY KEY,
  project_id  INTEGER NOT NULL REFERENCES projects(id) ON DELETE CASCADE,
  external_id TEXT,
  agent       TEXT,
  summary     TEXT,
  body        BLOB,                 -- zlib-compressed distilled conversation
  body_len    INTEGER,
  created_at  INTEGER NOT NULL
) STRICT;
CREATE TABLE vectors (
  owner_kind TEXT NOT NULL CHECK (owner_kind IN ('chunk','memory')),
  owner_id   INTEGER NOT NULL,
  model      TEXT NOT NULL,
  dim        INTEGER NOT NULL,
  encoding   TEXT NOT NULL CHECK (encoding IN ('f32','i8')),
  scale      REAL,
  data       BLOB NOT NULL,
  PRIMARY KEY (owner_kind, owner_id, model)
) STRICT;
INSERT INTO vectors VALUES('memory',1,'http:fixture-embed',16,'i8',0.0078125,X'8182838485868788898a8b8c8d8e8f90');
INSERT INTO vectors VALUES('memory',2,'http:fixture-embed',16,'i8',0.015625,X'9192939495969798999a9b9c9d9e9fa0');
INSERT INTO vectors VALUES('chunk',1,'http:fixture-embed',16,'i8',0.0234375,X'a1a2a3a4a5a6a7a8a9aaabacadaeafb0');
INSERT INTO vectors VALUES('chunk',2,'http:fixture-embed',16,'i8',0.03125,X'b1b2b3b4b5b6b7b8b9babbbcbdbebfc0');
CREATE TABLE audit (
  id         INTEGER PRIMARY KEY,
  project_id INTEGER REFERENCES projects(id) ON DELETE CASCADE,
  ts         INTEGER NOT NULL,
  actor      TEXT NOT NULL,
  action     TEXT NOT NULL,
  target     TEXT,
  detail     TEXT                  -- JSON
) STRICT;
INSERT INTO audit VALUES(1,1,1795248000000,'fixture','import',NULL,'{"imported":3,"replaced":0,"skipped":0,"links":3}');
INSERT INTO audit VALUES(2,1,1795248000000,'fixture','config','memory.excerpt_cap','{"key":"memory.excerpt_cap","value":"4096"}');
INSERT INTO audit VALUES(3,1,1795248000000,'fixture','config','memory.review_threshold','{"key":"memory.review_threshold","value":"0.6"}');
INSERT INTO audit VALUES(4,1,1795248000000,'fixture','config','user.name','{"key":"user.name","value":"fixture"}');
CREATE TABLE served (
  id         INTEGER PRIMARY KEY,
  project_id INTEGER REFERENCES projects(id) ON DELETE CASCADE,
  ts         INTEGER NOT NULL,
  op         TEXT NOT NULL,
  query      TEXT,
  items      TEXT NOT NULL          -- JSON array of {kind, id, score, signals}
, session TEXT, settled_at INTEGER) STRICT;
CREATE TABLE feedback (
  id         INTEGER PRIMARY KEY,
  served_id  INTEGER REFERENCES served(id) ON DELETE SET NULL,
  ts         INTEGER NOT NULL,
  actor      TEXT,
  item_kind  TEXT NOT NULL,
  item_id    TEXT NOT NULL,
  signal     TEXT NOT NULL CHECK (signal IN ('used','ignored','refined')),
  note       TEXT
, session TEXT, query TEXT) STRICT;
CREATE TABLE weights (
  project_id INTEGER NOT NULL REFERENCES projects(id) ON DELETE CASCADE,
  name       TEXT NOT NULL,
  value      REAL NOT NULL,
  updated_at INTEGER NOT NULL,
  PRIMARY KEY (project_id, name)
) STRICT;
PRAGMA writable_schema=ON;
INSERT INTO sqlite_schema(type,name,tbl_name,rootpage,sql)VALUES('table','memories_fts','memories_fts',0,'CREATE VIRTUAL TABLE memories_fts USING fts5(
  title, keywords, body, context,
  content = ''memories_fts_src'', content_rowid = ''id'',
  tokenize = ''mnemo''
)');
CREATE TABLE IF NOT EXISTS 'memories_fts_data'(id INTEGER PRIMARY KEY, block BLOB);
INSERT INTO memories_fts_data VALUES(1,X'020a050718');
INSERT INTO memories_fts_data VALUES(10,X'000000000101010001010101');
INSERT INTO memories_fts_data VALUES(137438953473,X'0000016303303330010601030903017301060103090103343031010c0101040103040105616674657201060103050203757468010601010501046361727401140201010206010311050502076865636b6f75740106010302010764656661756c74010601030703036c6179010a050103080901016501020702047870697201080401030e010369646c010601030601056c6576656c02060102030203696e6501080102020402036f636b020601020401036e696c01020602036f6e65010601031001036f6e6501060102030106706f73746772020203020179010801031305010472616973010601030b0206656672657368010601031903047475726e010601030302026f770206010202010173010601030a0205657276657202020503057373696f6e01140301010301030d07050508056578706972010601030d01047465616d0202040206696d656f7574010601030c0202776f010601020501037573650202020409080d0c0a120e0e0c060c0a0c0b0a080a0a0b090b0d0b09080a130c090d09');
CREATE TABLE IF NOT EXISTS 'memories_fts_idx'(segid, term, pgno, PRIMARY KEY(segid, term)) WITHOUT ROWID;
INSERT INTO memories_fts_idx VALUES(1,X'',2);
CREATE TABLE IF NOT EXISTS 'memories_fts_docsize'(id INTEGER PRIMARY KEY, sz BLOB);
INSERT INTO memories_fts_docsize VALUES(1,X'06050418');
INSERT INTO memories_fts_docsize VALUES(2,X'04000300');
CREATE TABLE IF NOT EXISTS 'memories_fts_config'(k PRIMARY KEY, v) WITHOUT ROWID;
INSERT INTO memories_fts_config VALUES('version',4);
INSERT INTO sqlite_schema(type,name,tbl_name,rootpage,sql)VALUES('table','chunks_fts','chunks_fts',0,'CREATE VIRTUAL TABLE chunks_fts USING fts5(
  path, names, signature, doc, body,
  content = ''chunks_fts_src'', content_rowid = ''id'',
  tokenize = ''mnemo''
)');
CREATE TABLE IF NOT EXISTS 'chunks_fts_data'(id INTEGER PRIMARY KEY, block BLOB);
INSERT INTO chunks_fts_data VALUES(1,X'03090406031a');
INSERT INTO chunks_fts_data VALUES(10,X'000000000102020002010101020101');
INSERT INTO chunks_fts_data VALUES(137438953473,X'000000cf03303330020601040d01046361727401080201040701020202046c617373010601040501026462010601040402026566020c01020201040203036c6179020e01030401040707010565787069720206010409030474656e64020c0103020104050106696d706f7274010601040201036e6f77020601040a01027079010204010204010772656672657368021401010204010203010403010473656c6602100102040104040605030472766572010601040303057373696f6e010a030104060401140301010301030301040604090f0b090c0e0c0e0d0a0a15100b');
INSERT INTO chunks_fts_data VALUES(274877906945,X'000000610930636865636b6f75740314030101020102030104030103646566030c01020201040201056f726465720310020102040104040301037061790306010406020179030204010772656365697074030601040803047475726e030601040704160d110a060e');
CREATE TABLE IF NOT EXISTS 'chunks_fts_idx'(segid, term, pgno, PRIMARY KEY(segid, term)) WITHOUT ROWID;
INSERT INTO chunks_fts_idx VALUES(1,X'',2);
INSERT INTO chunks_fts_idx VALUES(2,X'',2);
CREATE TABLE IF NOT EXISTS 'chunks_fts_docsize'(id INTEGER PRIMARY KEY, sz BLOB);
INSERT INTO chunks_fts_docsize VALUES(1,X'0300000007');
INSERT INTO chunks_fts_docsize VALUES(2,X'030303030c');
INSERT INTO chunks_fts_docsize VALUES(3,X'0301030007');
CREATE TABLE IF NOT EXISTS 'chunks_fts_config'(k PRIMARY KEY, v) WITHOUT ROWID;
INSERT INTO chunks_fts_config VALUES('version',4);
INSERT INTO sqlite_schema(type,name,tbl_name,rootpage,sql)VALUES('table','files_fts','files_fts',0,'CREATE VIRTUAL TABLE files_fts USING fts5(
  path,
  content = ''files'', content_rowid = ''id'',
  tokenize = ''mnemo''
)');
CREATE TABLE IF NOT EXISTS 'files_fts_data'(id INTEGER PRIMARY KEY, block BLOB);
INSERT INTO files_fts_data VALUES(1,X'0206');
INSERT INTO files_fts_data VALUES(10,X'000000000102020002010101020101');
INSERT INTO files_fts_data VALUES(137438953473,X'0000002005306361727401020201027079010204010773657373696f6e010203040907');
INSERT INTO files_fts_data VALUES(274877906945,X'000000220930636865636b6f757402020301056f7264657202020201027079020204040d0a');
CREATE TABLE IF NOT EXISTS 'files_fts_idx'(segid, term, pgno, PRIMARY KEY(segid, term)) WITHOUT ROWID;
INSERT INTO files_fts_idx VALUES(1,X'',2);
INSERT INTO files_fts_idx VALUES(2,X'',2);
CREATE TABLE IF NOT EXISTS 'files_fts_docsize'(id INTEGER PRIMARY KEY, sz BLOB);
INSERT INTO files_fts_docsize VALUES(1,X'03');
INSERT INTO files_fts_docsize VALUES(2,X'03');
CREATE TABLE IF NOT EXISTS 'files_fts_config'(k PRIMARY KEY, v) WITHOUT ROWID;
INSERT INTO files_fts_config VALUES('version',4);
INSERT INTO sqlite_schema(type,name,tbl_name,rootpage,sql)VALUES('table','chunks_vocab','chunks_vocab',0,'CREATE VIRTUAL TABLE chunks_vocab USING fts5vocab(chunks_fts, ''row'')');
CREATE TABLE embed_models (
  model        TEXT PRIMARY KEY,
  project_id   INTEGER REFERENCES projects(id) ON DELETE CASCADE,  -- built-in: the corpus
  dim          INTEGER NOT NULL CHECK (dim BETWEEN 1 AND 8192),
  docs         INTEGER NOT NULL DEFAULT 0,
  params       TEXT,                                                -- JSON
  nonce        TEXT NOT NULL,
  epoch        INTEGER NOT NULL DEFAULT 0,
  synced_epoch INTEGER NOT NULL DEFAULT -1,
  created_at   INTEGER NOT NULL
, memory_epoch INTEGER NOT NULL DEFAULT 0, chunk_epoch INTEGER NOT NULL DEFAULT 0, synced_chunks INTEGER NOT NULL DEFAULT -1) STRICT;
INSERT INTO embed_models VALUES('http:fixture-embed',NULL,16,0,NULL,'01M8693800ZMX021G0KN7J3M88',4,0,1795507200000,4,4,-1);
INSERT INTO embed_models VALUES('builtin:lsa32@00000000000000f5',1,32,40,'{"algo":"windowed-lsa","version":1}','01M8693800ZMX021G0KN7J3M89',0,-1,1795507200000,0,0,-1);
CREATE TABLE embed_terms (
  model TEXT NOT NULL REFERENCES embed_models(model) ON DELETE CASCADE,
  term  TEXT NOT NULL,
  idf   REAL NOT NULL,
  scale REAL NOT NULL,
  vec   BLOB NOT NULL,
  PRIMARY KEY (model, term)
) STRICT, WITHOUT ROWID;
INSERT INTO embed_terms VALUES('builtin:lsa32@00000000000000f5','cart',1.5,0.0099999997764825820922,X'81888f969da4abb2b9c0c7ced5dce3eaf1f8ff060d141b222930373e454c535a');
INSERT INTO embed_terms VALUES('builtin:lsa32@00000000000000f5','session',0.75,0.019999999552965164184,X'81888f969da4abb2b9c0c7ced5dce3eaf1f8ff060d141b222930373e454c535a');
CREATE TABLE embed_corpus (
  id    INTEGER PRIMARY KEY CHECK (id = 1),
  epoch INTEGER NOT NULL
, memory_epoch INTEGER NOT NULL DEFAULT 0) STRICT;
INSERT INTO embed_corpus VALUES(1,0,0);
CREATE TABLE history_commits (
  id         INTEGER PRIMARY KEY,
  project_id INTEGER NOT NULL REFERENCES projects(id) ON DELETE CASCADE,
  hash       TEXT NOT NULL,
  time       INTEGER NOT NULL,
  subject    TEXT NOT NULL,
  UNIQUE (project_id, hash)
) STRICT;
CREATE TABLE history_files (
  commit_id INTEGER NOT NULL REFERENCES history_commits(id) ON DELETE CASCADE,
  path      TEXT NOT NULL,
  PRIMARY KEY (commit_id, path)
) STRICT, WITHOUT ROWID;
CREATE TABLE history_state (
  project_id INTEGER PRIMARY KEY REFERENCES projects(id) ON DELETE CASCADE,
  head       TEXT NOT NULL
) STRICT;
CREATE TABLE history_docs (
  id         INTEGER PRIMARY KEY,
  project_id INTEGER NOT NULL REFERENCES projects(id) ON DELETE CASCADE,
  path       TEXT NOT NULL,
  subjects   TEXT NOT NULL,
  UNIQUE (project_id, path)
) STRICT;
INSERT INTO sqlite_schema(type,name,tbl_name,rootpage,sql)VALUES('table','history_fts','history_fts',0,'CREATE VIRTUAL TABLE history_fts USING fts5(
  subjects,
  content = ''history_docs'', content_rowid = ''id'',
  tokenize = ''mnemo''
)');
CREATE TABLE IF NOT EXISTS 'history_fts_data'(id INTEGER PRIMARY KEY, block BLOB);
INSERT INTO history_fts_data VALUES(1,X'');
INSERT INTO history_fts_data VALUES(10,X'00000000000000');
CREATE TABLE IF NOT EXISTS 'history_fts_idx'(segid, term, pgno, PRIMARY KEY(segid, term)) WITHOUT ROWID;
CREATE TABLE IF NOT EXISTS 'history_fts_docsize'(id INTEGER PRIMARY KEY, sz BLOB);
CREATE TABLE IF NOT EXISTS 'history_fts_config'(k PRIMARY KEY, v) WITHOUT ROWID;
INSERT INTO history_fts_config VALUES('version',4);
CREATE TABLE memory_fingerprints (
  memory_id INTEGER PRIMARY KEY REFERENCES memories(id) ON DELETE CASCADE,
  fp        BLOB NOT NULL
) STRICT;
INSERT INTO memory_fingerprints VALUES(1,X'bae41eb0938fb75a2286bb0fc68a44285606489ee9f89b7fd45b8244a84a137f4dfdd976c0073f3bd02f539f625a23cd5958c3bddf2bff9bd45b8244813fa9256d8b677157e716ec6ff2d3a42bbfe195d0cf5503ad648c59aa4b9e2a961d109f625a23cd729f552ead648c598d9a4b035625624edf2bff9ba84a137f729f552effaa1b806e70f6215958c3bd632a3837e58e88b54dfdd9769f02e982fcdad328aa4b9e2a813fa925366af735f17806877b53c912ad648c59e58e88b5e58e88b5a84a137f8a4034d7813fa925d0cf5503a84a137f2bbfe1959f02e98204a96306564916a8813fa9254e7fef72449e34259f02e982625a23cd6e6382c38a862dd98a862dd99ef679b7ea3144b85606489ec2d6b05a79a134fc813fa925e593617d4dfdd976cfe6f068625a23cd358228f8fc2bc09b79a134fcf17806879adb753c7b53c912c8a1ae019f02e982358228f88a4034d79f02e9825606489e603c35c6a84a137fa5a3970179e429255606489e6df93f2fd45b8244317c08edfcc1b605c5dcf38957e716ec80b453a0fcc1b605ffaa1b80c0fb291128511b22c8a1ae01fcdad3286fe7a847e593617d23c89b8baa4b9e2a8a4034d764e13b8782b5c44c5625624ec0fb291130b24219c5dcf38996680c4023c89b8be593617db3f8ed7edf2bff9b564916a8625a23cd9adb753cc9d8af81366af7352bbfe1956d8b6771aa4b9e2a20988d4d6e9c1544f1780687ff3b9429e847a6281300000067000000');
INSERT INTO memory_fingerprints VALUES(2,X'ac7239646940c5509285c9ee6149d0cbe8028903e4227ebbe4227ebb1378e1ddeb324bde059d17e267af1a978f70773ca46eefbc773ae6ba1378e1dd54ba516554ba516554ba5165799057ffeb324bdef9a30d3967af1a9712e607482731374b8f70773c54ba5165e4227ebbe8028903c297a03f2731374b799057ffd1764c61e4227ebb6f843db3af73a600d34af63d9ae89fbaeb324bde799057ff6bcfb75a6bcfb75a487874ad6f843db3799057ffe802890354ba5165af73a60012e60748d1764c61c297a03f1c6449b4487874ad059d17e2d1764c61799057ffa46eefbc4a85668dee7987c4e8028903c5240fe4d34af63d487874adf9a30d391378e1dd54ba51652731374b9ae89fba487874ad2731374b32e00b388f70773ce8028903eb324bde2731374b1c6449b4e8028903c297a03f6f843db3e8028903d34af63d67af1a978f70773c799057ff2731374b059d17e2c5240fe4e80289032731374b487874ad1378e1ddc5240fe4e80289031378e1dd67af1a976bcfb75ad1764c618f70773cc297a03f6bcfb75a1378e1dd8f70773c6bcfb75aeb324bde799057ff54ba51654a85668d9ae89fba12e6074854ba5165d1764c61a46eefbce802890332e00b38af73a6004a85668dee7987c467af1a97e80289039ae89fbaa46eefbc487874ad32e00b38d1764c614a85668daf73a600c297a03f773ae6ba2731374b487874add1764c61ee7987c4773ae6bab30df4d06447665b0700000022000000');
INSERT INTO memory_fingerprints VALUES(3,X'7e7be677bdf408d862afeceeab73dc1d1b2e1917e4227ebbe4227ebb799057ffeb324bde059d17e2af8685acc4f660e3a46eefbc6a91ccbe4ab3602cc4f660e3c16f73b86a91ccbe14687ea5eb324bdef15fdedefad2e79bc16f73b84e404cdbfad2e79bf15fdedee4227ebbc4169f0a1b2e19176a91ccbe799057ffa73cd289e4227ebb1b2e1917f15fdedeb305e6e7059d17e2eb324bde799057ffc4169f0aeb324bde4e404cdbaf8685ac799057ff4d540285f15fdedec5240fe4c16f73b8a73cd2891b2e1917c4169f0af15fdedeaf8685aca73cd289799057ff1b2e1917c5240fe4c16f73b86a91ccbeb305e6e7799057ff14687ea5f15fdede1b2e1917c16f73b879fd422ec4169f0aeb324bdeaf8685ac39bbec56fad2e79bc4f660e3eb324bde4e404cdbeb324bdec4f660e34e404cdb39bbec56f15fdedee4227ebb4d540285fad2e79b799057ffaf8685ac059d17e2c5240fe4e4227ebb4e404cdbb305e6e7e4227ebbc5240fe4799057ffeb324bde79fd422e4e404cdba73cd289fad2e79bb305e6e7eb324bdea73cd289fad2e79b4ab3602c4ab3602c799057ffc4169f0aaf8685acc4f660e3c16f73b8c4f660e3a73cd289a46eefbcc16f73b8af8685aca73cd28979fd422e4ab3602c14687ea54d540285c4f660e3a46eefbc6a91ccbe799057ff4e404cdb4e404cdb4ab3602cc16f73b8eb324bde4e404cdb4e404cdbb305e6e74ab3602cfad2e79bc463913eb9c2d5640500000016000000');
CREATE TABLE memory_keys (
  key       INTEGER NOT NULL,
  memory_id INTEGER NOT NULL REFERENCES memories(id) ON DELETE CASCADE,
  PRIMARY KEY (key, memory_id)
) STRICT, WITHOUT ROWID;
INSERT INTO memory_keys VALUES(-9012953304791424239,1);
INSERT INTO memory_keys VALUES(-6949007937449746960,1);
INSERT INTO memory_keys VALUES(-6944057371826831221,1);
INSERT INTO memory_keys VALUES(-6831122082953828783,1);
INSERT INTO memory_keys VALUES(-6514039849566855530,1);
INSERT INTO memory_keys VALUES(-6263034870242673349,1);
INSERT INTO memory_keys VALUES(-5580390053164180661,1);
INSERT INTO memory_keys VALUES(-4527559046818043381,1);
INSERT INTO memory_keys VALUES(-4147170879937291199,1);
INSERT INTO memory_keys VALUES(-3492248820703422214,1);
INSERT INTO memory_keys VALUES(-2246659551958405943,1);
INSERT INTO memory_keys VALUES(-1947937939811328311,1);
INSERT INTO memory_keys VALUES(-1910547694626271099,1);
INSERT INTO memory_keys VALUES(-1750606799866302443,1);
INSERT INTO memory_keys VALUES(-1302960528792264884,1);
INSERT INTO memory_keys VALUES(-409133239558654694,1);
INSERT INTO memory_keys VALUES(-117114172950926888,1);
INSERT INTO memory_keys VALUES(1646286509599324053,1);
INSERT INTO memory_keys VALUES(1826501823820776294,1);
INSERT INTO memory_keys VALUES(2044696828407411457,1);
INSERT INTO memory_keys VALUES(2096989410290911754,1);
INSERT INTO memory_keys VALUES(3023763419821193763,1);
INSERT INTO memory_keys VALUES(3172161939251563620,1);
INSERT INTO memory_keys VALUES(3309401279006519103,1);
INSERT INTO memory_keys VALUES(3607408361541585949,1);
INSERT INTO memory_keys VALUES(4459987423044087384,1);
INSERT INTO memory_keys VALUES(4521327313166737264,1);
INSERT INTO memory_keys VALUES(5069306114861212515,1);
INSERT INTO memory_keys VALUES(5158786376508737562,1);
INSERT INTO memory_keys VALUES(5450027328611041592,1);
INSERT INTO memory_keys VALUES(5921717895790575021,1);
INSERT INTO memory_keys VALUES(7036179572534103770,1);
INSERT INTO memory_keys VALUES(8590469931692132740,1);
INSERT INTO memory_keys VALUES(-9088652973031327429,2);
INSERT INTO memory_keys VALUES(-8669912806301420558,2);
INSERT INTO memory_keys VALUES(-8523360496423899755,2);
INSERT INTO memory_keys VALUES(-8506443992083197101,2);
INSERT INTO memory_keys VALUES(-8247846836945585388,2);
INSERT INTO memory_keys VALUES(-7786993975509267615,2);
INSERT INTO memory_keys VALUES(-7634733893674119206,2);
INSERT INTO memory_keys VALUES(-7630607195741764981,2);
INSERT INTO memory_keys VALUES(-6751498421093128905,2);
INSERT INTO memory_keys VALUES(-3994481996226792540,2);
INSERT INTO memory_keys VALUES(-3952389048944590496,2);
INSERT INTO memory_keys VALUES(-3748951381569893500,2);
INSERT INTO memory_keys VALUES(-3511899306851309401,2);
INSERT INTO memory_keys VALUES(-3231388910764374620,2);
INSERT INTO memory_keys VALUES(-2717311025693530639,2);
INSERT INTO memory_keys VALUES(-2550689574291280728,2);
INSERT INTO memory_keys VALUES(-2047035823306013245,2);
INSERT INTO memory_keys VALUES(-1880965633419961261,2);
INSERT INTO memory_keys VALUES(-514423651340567954,2);
INSERT INTO memory_keys VALUES(199492026318503756,2);
INSERT INTO memory_keys VALUES(640278725815121162,2);
INSERT INTO memory_keys VALUES(1444999328150343056,2);
INSERT INTO memory_keys VALUES(1958994824185565542,2);
INSERT INTO memory_keys VALUES(2021420833127201011,2);
INSERT INTO memory_keys VALUES(4390473197950168284,2);
INSERT INTO memory_keys VALUES(4993118282467256293,2);
INSERT INTO memory_keys VALUES(5370267386777240157,2);
INSERT INTO memory_keys VALUES(5781045493276692056,2);
INSERT INTO memory_keys VALUES(5890503868982003323,2);
INSERT INTO memory_keys VALUES(6382318123005188514,2);
INSERT INTO memory_keys VALUES(6443191315792016358,2);
INSERT INTO memory_keys VALUES(6705315523532909754,2);
INSERT INTO memory_keys VALUES(8073939169342131396,2);
INSERT INTO memory_keys VALUES(-6644049504312393536,3);
INSERT INTO memory_keys VALUES(-5998953933386628492,3);
INSERT INTO memory_keys VALUES(-5970575281355324738,3);
INSERT INTO memory_keys VALUES(-5646548305162807098,3);
INSERT INTO memory_keys VALUES(-4431808321302931205,3);
INSERT INTO memory_keys VALUES(-3782654321382490106,3);
INSERT INTO memory_keys VALUES(-3560360373622783876,3);
INSERT INTO memory_keys VALUES(-3127758127489396937,3);
INSERT INTO memory_keys VALUES(-2041636760713885702,3);
INSERT INTO memory_keys VALUES(-1962716703877600584,3);
INSERT INTO memory_keys VALUES(-1744668158122212004,3);
INSERT INTO memory_keys VALUES(-1416086441059572601,3);
INSERT INTO memory_keys VALUES(-1069671353069574259,3);
INSERT INTO memory_keys VALUES(-82041078734432151,3);
INSERT INTO memory_keys VALUES(-48975905420035960,3);
INSERT INTO memory_keys VALUES(817942279537566698,3);
INSERT INTO memory_keys VALUES(859997603667668422,3);
INSERT INTO memory_keys VALUES(1088166499866682628,3);
INSERT INTO memory_keys VALUES(1494897254249087935,3);
INSERT INTO memory_keys VALUES(1776397889743400698,3);
INSERT INTO memory_keys VALUES(1930232776841810627,3);
INSERT INTO memory_keys VALUES(2200292576412035893,3);
INSERT INTO memory_keys VALUES(2249199886439796117,3);
INSERT INTO memory_keys VALUES(2253547693106074971,3);
INSERT INTO memory_keys VALUES(2485494085568788241,3);
INSERT INTO memory_keys VALUES(2801906138700539250,3);
INSERT INTO memory_keys VALUES(2875510151569465181,3);
INSERT INTO memory_keys VALUES(3465326360089275099,3);
INSERT INTO memory_keys VALUES(5270321369298506279,3);
INSERT INTO memory_keys VALUES(5837087015046854760,3);
INSERT INTO memory_keys VALUES(7103295792426975169,3);
INSERT INTO memory_keys VALUES(7283787480124685760,3);
INSERT INTO memory_keys VALUES(8580784487871305168,3);
CREATE TABLE git_commits (
  id          INTEGER PRIMARY KEY,
  project_id  INTEGER NOT NULL REFERENCES projects(id) ON DELETE CASCADE,
  sha         TEXT NOT NULL,
  parents     TEXT NOT NULL DEFAULT '',   -- full shas, space separated
  author      TEXT,
  time        INTEGER NOT NULL,           -- commit time, ms
  subject     TEXT NOT NULL DEFAULT '',
  body        TEXT,                       -- the rest of the message
  symbols     TEXT,                       -- JSON array of touched symbols (through the index)
  candidates  INTEGER NOT NULL DEFAULT 0,
  saved       INTEGER NOT NULL DEFAULT 0, -- saved active
  queued      INTEGER NOT NULL DEFAULT 0, -- saved pending (the review queue)
  state       TEXT NOT NULL CHECK (state IN ('claimed', 'done')),
  ingested_at INTEGER NOT NULL,
  UNIQUE (project_id, sha)
) STRICT;
CREATE TABLE git_commit_files (
  commit_id INTEGER NOT NULL REFERENCES git_commits(id) ON DELETE CASCADE,
  path      TEXT NOT NULL,
  status    TEXT NOT NULL,                -- added modified deleted renamed
  PRIMARY KEY (commit_id, path)
) STRICT, WITHOUT ROWID;
CREATE TABLE ingest_keys (
  project_id  INTEGER NOT NULL REFERENCES projects(id) ON DELETE CASCADE,
  key         TEXT NOT NULL,
  memory_uid  TEXT NOT NULL,
  source_hash TEXT,
  updated_at  INTEGER NOT NULL,
  PRIMARY KEY (project_id, key)
) STRICT;
CREATE TABLE task_links (
  project_id INTEGER NOT NULL REFERENCES projects(id) ON DELETE CASCADE,
  task_key   TEXT NOT NULL,
  ref        TEXT NOT NULL,
  kind       TEXT NOT NULL CHECK (kind IN ('fixes', 'mentions', 'relates_to')),
  created_at INTEGER NOT NULL,
  PRIMARY KEY (project_id, task_key, ref)
) STRICT, WITHOUT ROWID;
CREATE TABLE branch_ancestry (
  project_id INTEGER NOT NULL REFERENCES projects(id) ON DELETE CASCADE,
  head       TEXT NOT NULL,
  sha        TEXT NOT NULL,
  merged     INTEGER NOT NULL,
  checked_at INTEGER NOT NULL,
  PRIMARY KEY (project_id, head, sha)
) STRICT, WITHOUT ROWID;
CREATE TABLE blame_cache (
  project_id INTEGER NOT NULL REFERENCES projects(id) ON DELETE CASCADE,
  path       TEXT NOT NULL,
  blob       TEXT NOT NULL,
  first_line INTEGER NOT NULL,
  last_line  INTEGER NOT NULL,
  hunks      TEXT NOT NULL,               -- JSON [{sha, start, lines}]
  created_at INTEGER NOT NULL,
  PRIMARY KEY (project_id, path, blob, first_line, last_line)
) STRICT, WITHOUT ROWID;
CREATE TABLE declared_names (
  file_id INTEGER NOT NULL REFERENCES files(id) ON DELETE CASCADE,
  line    INTEGER NOT NULL,
  kind    TEXT NOT NULL CHECK (kind IN ('option', 'env', 'config')),
  name    TEXT NOT NULL
) STRICT;
CREATE TABLE tokens (
  id           INTEGER PRIMARY KEY,
  name         TEXT NOT NULL UNIQUE,
  project      TEXT NOT NULL,
  role         TEXT NOT NULL CHECK (role IN ('reader', 'writer', 'admin')),
  secret_hash  TEXT NOT NULL UNIQUE,
  created_at   INTEGER NOT NULL,
  expires_at   INTEGER,
  revoked_at   INTEGER,
  last_used_at INTEGER
) STRICT;
CREATE TABLE IF NOT EXISTS "memories" (
  id               INTEGER PRIMARY KEY,
  uid              TEXT NOT NULL,
  project_id       INTEGER NOT NULL REFERENCES projects(id) ON DELETE CASCADE,
  kind             TEXT NOT NULL CHECK (kind IN
                     ('fact','decision','gotcha','pattern','rule','fewshot','episode','doc_link')),
  level            INTEGER NOT NULL CHECK (level BETWEEN 0 AND 3),
  title            TEXT NOT NULL,
  body             TEXT NOT NULL DEFAULT '',
  situation        TEXT,
  solution         TEXT,
  trigger_keywords TEXT,            -- JSON array
  what_failed      TEXT,
  error_messages   TEXT,            -- JSON array
  files_modified   TEXT,            -- JSON array
  excerpt          BLOB,            -- zlib-compressed conversation excerpt
  excerpt_len      INTEGER,         -- its uncompressed length in bytes
  scope_paths      TEXT,            -- JSON array (also in memory_paths)
  scope_symbols    TEXT,            -- JSON array
  tags             TEXT,            -- JSON array (also in memory_tags)
  branch           TEXT,
  source           TEXT NOT NULL CHECK (source IN
                     ('manual','agent','git','document','issue','discovery','import')),
  author           TEXT,
  commit_sha       TEXT,
  task_ref         TEXT,
  dialog_ref       TEXT,
  session_ref      TEXT,
  status           TEXT NOT NULL CHECK (status IN
                     ('active','pending','quarantined','superseded','archived')),
  confidence       REAL NOT NULL CHECK (confidence BETWEEN 0 AND 1),
  quality          REAL CHECK (quality BETWEEN 0 AND 1),
  expires_at       INTEGER,
  created_at       INTEGER NOT NULL,
  updated_at       INTEGER NOT NULL,
  accessed_at      INTEGER,
  deleted_at       INTEGER,         -- soft delete ("forget"); NULL when live
  hit_count        INTEGER NOT NULL DEFAULT 0,
  used_count       INTEGER NOT NULL DEFAULT 0,
  ignored_count    INTEGER NOT NULL DEFAULT 0,
  content_hash     TEXT NOT NULL,   -- xxh3 of kind + normalized title and body: exact dedup
  simhash          INTEGER,         -- near-duplicate detection (text/)
  extraction_method TEXT
    CHECK (extraction_method IN ('manual','agent','auto','hybrid')), -- schema v9
  judgement        TEXT,            -- JSON object (schema v9)
  saved_at         INTEGER          -- when this store took it in (schema v10)
) STRICT;
INSERT INTO memories VALUES(1,'01JD3Q7Y8Z00000000000000A1',1,'gotcha',3,'Cart sessions expire when delay is nil é€',replace('Line one\nLine ''two''','\n',char(10)),'checkout returned 401 after idle','default delay to 30s','["cart","session","401"]','raising the timeout','["SessionExpired: delay=None"]','["cart/session.py"]',X'789c2b2d4e2db25228cfa854303130b4e74a4c4fcd2bb1524849cd49ac54c82c56f0cbcf4b0500ce050b94',35,'["cart/session.py","cart"]','["Session.refresh"]','["auth","cart"]','main','agent','ada','0123abcd','PROJ-12','dlg-7','sess-9','active',0.75,0.5,1798761600000,1795239445123,1795240800000,1795305600001,NULL,3,2,1,'fa20257a166fa299',NULL,NULL,NULL,1795824788877);
INSERT INTO memories VALUES(2,'01JD3Q7Y8Z00000000000000B2',1,'decision',1,'Use Postgres for the team server','Because of row-level locks.',NULL,NULL,NULL,NULL,NULL,NULL,NULL,NULL,NULL,NULL,NULL,NULL,'manual','bob',NULL,NULL,NULL,NULL,'active',0.9000000000000000222,NULL,NULL,1795244400000,1795244400000,NULL,NULL,0,0,0,'b189b6d594fa59a1',NULL,NULL,NULL,1795824788877);
INSERT INTO memories VALUES(3,'01JD3Q7Y8Z00000000000000C3',1,'fact',2,'SQLite was the team server store','',NULL,NULL,NULL,NULL,NULL,NULL,X'789c95d1b90dc2401040d19c2aa602e4b938dc8d8dd6608100d96b21328aa0422a2125e417f0a2b7cc656a65aee52e4d2343375e66f9bcded21dcbb5b632953a3de531d693f4dde17c1b86f56af921ca8971e29c0427c9c986932d273b4ef69828df57beaf7c5ff9bef27de5fbcaf795ef2bdf57be6f7cdff8bef17de3fbc6f78def1bdf37be6f7cdff8bef37de7fbcef79def3bdf77beef7cdff9bef37de7fbc1f783ef07df0fbe1f7c3ff87ef0fde0fbc1f783ef27df4fbe9f7c3ff97ef2fde4fbc9f793ef27dfcf3ff7bf64df4ebd',3060,'["server"]',NULL,'["db"]',NULL,'git',NULL,'feedbeef',NULL,NULL,NULL,'superseded',0.59999999999999997779,NULL,NULL,1795132800000,1795244403000,NULL,1795248000000,0,0,5,'3befacd040f901ec',NULL,NULL,NULL,1795824788877);
CREATE INDEX symbols_file ON symbols(file_id);
CREATE INDEX symbols_name ON symbols(name);
CREATE INDEX edges_src ON edges(src_kind, src_id);
CREATE INDEX edges_dst ON edges(dst_kind, dst_id);
CREATE INDEX chunks_file ON chunks(file_id);
CREATE INDEX memory_tags_memory ON memory_tags(memory_id);
CREATE INDEX memory_paths_memory ON memory_paths(memory_id);
CREATE UNIQUE INDEX links_unique_memory ON links(src_id, kind, dst_memory_id) WHERE dst_memory_id IS NOT NULL;
CREATE UNIQUE INDEX links_unique_ref ON links(src_id, kind, dst_ref) WHERE dst_ref IS NOT NULL;
CREATE INDEX links_src ON links(src_id);
CREATE INDEX links_dst ON links(dst_memory_id);
CREATE INDEX audit_ts ON audit(ts);
CREATE INDEX feedback_item ON feedback(item_kind, item_id);
CREATE INDEX chunks_symbol ON chunks(symbol_id);
CREATE VIEW memories_fts_src AS
SELECT m.id AS id,
       m.title AS title,
       trim(coalesce(CASE WHEN json_valid(m.trigger_keywords) THEN (SELECT group_concat(json_extract(m.trigger_keywords, '$[' || n || ']'), ' ')
                 FROM (WITH RECURSIVE i(n) AS (SELECT 0 UNION ALL SELECT n + 1 FROM i
                       WHERE n + 1 < json_array_length(m.trigger_keywords)) SELECT n FROM i))
               ELSE m.trigger_keywords END, '') || ' ' ||
            coalesce(CASE WHEN json_valid(m.tags) THEN (SELECT group_concat(json_extract(m.tags, '$[' || n || ']'), ' ')
                 FROM (WITH RECURSIVE i(n) AS (SELECT 0 UNION ALL SELECT n + 1 FROM i
                       WHERE n + 1 < json_array_length(m.tags)) SELECT n FROM i))
               ELSE m.tags END, '')) AS keywords,
       m.body AS body,
       trim(coalesce(m.situation || char(10), '') ||
            coalesce(m.solution || char(10), '') ||
            coalesce(m.what_failed || char(10), '') ||
            coalesce(CASE WHEN json_valid(m.error_messages) THEN (SELECT group_concat(json_extract(m.error_messages, '$[' || n || ']'), char(10))
                 FROM (WITH RECURSIVE i(n) AS (SELECT 0 UNION ALL SELECT n + 1 FROM i
                       WHERE n + 1 < json_array_length(m.error_messages)) SELECT n FROM i))
               ELSE m.error_messages END, '') || char(10) ||
            coalesce(CASE WHEN json_valid(m.files_modified) THEN (SELECT group_concat(json_extract(m.files_modified, '$[' || n || ']'), ' ')
                 FROM (WITH RECURSIVE i(n) AS (SELECT 0 UNION ALL SELECT n + 1 FROM i
                       WHERE n + 1 < json_array_length(m.files_modified)) SELECT n FROM i))
               ELSE m.files_modified END, '') || char(10) ||
            coalesce(CASE WHEN json_valid(m.scope_paths) THEN (SELECT group_concat(json_extract(m.scope_paths, '$[' || n || ']'), ' ')
                 FROM (WITH RECURSIVE i(n) AS (SELECT 0 UNION ALL SELECT n + 1 FROM i
                       WHERE n + 1 < json_array_length(m.scope_paths)) SELECT n FROM i))
               ELSE m.scope_paths END, '') || char(10) ||
            coalesce(CASE WHEN json_valid(m.scope_symbols) THEN (SELECT group_concat(json_extract(m.scope_symbols, '$[' || n || ']'), ' ')
                 FROM (WITH RECURSIVE i(n) AS (SELECT 0 UNION ALL SELECT n + 1 FROM i
                       WHERE n + 1 < json_array_length(m.scope_symbols)) SELECT n FROM i))
               ELSE m.scope_symbols END, ''), char(32, 10)) AS context
FROM memories m
WHERE m.deleted_at IS NULL;
CREATE VIEW chunks_fts_src AS
SELECT c.id AS id,
       f.path AS path,
       CASE WHEN y.id IS NULL THEN NULL
            WHEN y.qualified_name = y.name THEN y.name
            ELSE y.name || ' ' || y.qualified_name END AS names,
       y.signature AS signature,
       y.docstring AS doc,
       c.text AS body
FROM chunks c
LEFT JOIN files f ON f.id = c.file_id
LEFT JOIN symbols y ON y.id = c.symbol_id;
CREATE TRIGGER chunks_fts_insert AFTER INSERT ON chunks BEGIN
  INSERT INTO chunks_fts(rowid, path, names, signature, doc, body)
    SELECT id, path, names, signature, doc, body FROM chunks_fts_src WHERE id = new.id;
END;
CREATE TRIGGER chunks_fts_delete BEFORE DELETE ON chunks BEGIN
  INSERT INTO chunks_fts(chunks_fts, rowid, path, names, signature, doc, body)
    SELECT 'delete', id, path, names, signature, doc, body FROM chunks_fts_src WHERE id = old.id;
END;
CREATE TRIGGER chunks_fts_update_old BEFORE UPDATE ON chunks
WHEN old.text IS NOT new.text OR old.file_id IS NOT new.file_id
  OR old.symbol_id IS NOT new.symbol_id OR old.id IS NOT new.id
BEGIN
  INSERT INTO chunks_fts(chunks_fts, rowid, path, names, signature, doc, body)
    SELECT 'delete', id, path, names, signature, doc, body FROM chunks_fts_src WHERE id = old.id;
END;
CREATE TRIGGER chunks_fts_update_new AFTER UPDATE ON chunks
WHEN old.text IS NOT new.text OR old.file_id IS NOT new.file_id
  OR old.symbol_id IS NOT new.symbol_id OR old.id IS NOT new.id
BEGIN
  INSERT INTO chunks_fts(rowid, path, names, signature, doc, body)
    SELECT id, path, names, signature, doc, body FROM chunks_fts_src WHERE id = new.id;
END;
CREATE TRIGGER chunks_fts_file_delete BEFORE DELETE ON files BEGIN
  DELETE FROM chunks WHERE file_id = old.id;
END;
CREATE TRIGGER chunks_fts_symbol_delete BEFORE DELETE ON symbols BEGIN
  DELETE FROM chunks WHERE symbol_id = old.id;
END;
CREATE TRIGGER chunks_fts_file_update_old BEFORE UPDATE OF path ON files
WHEN old.path IS NOT new.path BEGIN
  INSERT INTO chunks_fts(chunks_fts, rowid, path, names, signature, doc, body)
    SELECT 'delete', s.id, s.path, s.names, s.signature, s.doc, s.body
    FROM chunks c JOIN chunks_fts_src s ON s.id = c.id WHERE c.file_id = old.id;
END;
CREATE TRIGGER chunks_fts_file_update_new AFTER UPDATE OF path ON files
WHEN old.path IS NOT new.path BEGIN
  INSERT INTO chunks_fts(rowid, path, names, signature, doc, body)
    SELECT s.id, s.path, s.names, s.signature, s.doc, s.body
    FROM chunks c JOIN chunks_fts_src s ON s.id = c.id WHERE c.file_id = new.id;
END;
CREATE TRIGGER chunks_fts_symbol_update_old BEFORE UPDATE OF name, qualified_name, signature,
  docstring ON symbols
WHEN old.name IS NOT new.name OR old.qualified_name IS NOT new.qualified_name
  OR old.signature IS NOT new.signature OR old.docstring IS NOT new.docstring BEGIN
  INSERT INTO chunks_fts(chunks_fts, rowid, path, names, signature, doc, body)
    SELECT 'delete', s.id, s.path, s.names, s.signature, s.doc, s.body
    FROM chunks c JOIN chunks_fts_src s ON s.id = c.id WHERE c.symbol_id = old.id;
END;
CREATE TRIGGER chunks_fts_symbol_update_new AFTER UPDATE OF name, qualified_name, signature,
  docstring ON symbols
WHEN old.name IS NOT new.name OR old.qualified_name IS NOT new.qualified_name
  OR old.signature IS NOT new.signature OR old.docstring IS NOT new.docstring BEGIN
  INSERT INTO chunks_fts(rowid, path, names, signature, doc, body)
    SELECT s.id, s.path, s.names, s.signature, s.doc, s.body
    FROM chunks c JOIN chunks_fts_src s ON s.id = c.id WHERE c.symbol_id = new.id;
END;
CREATE TRIGGER files_fts_insert AFTER INSERT ON files BEGIN
  INSERT INTO files_fts(rowid, path) VALUES (new.id, new.path);
END;
CREATE TRIGGER files_fts_delete AFTER DELETE ON files BEGIN
  INSERT INTO files_fts(files_fts, rowid, path) VALUES ('delete', old.id, old.path);
END;
CREATE TRIGGER files_fts_update AFTER UPDATE OF path ON files
WHEN old.path IS NOT new.path BEGIN
  INSERT INTO files_fts(files_fts, rowid, path) VALUES ('delete', old.id, old.path);
  INSERT INTO files_fts(rowid, path) VALUES (new.id, new.path);
END;
CREATE INDEX feedback_served ON feedback(served_id);
CREATE INDEX links_ref ON links(dst_ref, kind);
CREATE INDEX served_ts ON served(project_id, ts);
CREATE INDEX edges_key ON edges(dst_key) WHERE dst_key IS NOT NULL;
CREATE INDEX vectors_model ON vectors(model, owner_kind);
CREATE TRIGGER embed_chunk_insert AFTER INSERT ON chunks BEGIN
  UPDATE embed_corpus SET epoch = epoch + 1;
END;
CREATE TRIGGER embed_chunk_delete AFTER DELETE ON chunks BEGIN
  DELETE FROM vectors WHERE owner_kind = 'chunk' AND owner_id = old.id;
  UPDATE embed_corpus SET epoch = epoch + 1;
END;
CREATE TRIGGER embed_chunk_update AFTER UPDATE ON chunks
WHEN old.text IS NOT new.text OR old.file_id IS NOT new.file_id
  OR old.symbol_id IS NOT new.symbol_id OR old.id IS NOT new.id
BEGIN
  DELETE FROM vectors WHERE owner_kind = 'chunk' AND owner_id = old.id;
  UPDATE embed_corpus SET epoch = epoch + 1;
END;
CREATE TRIGGER embed_file_path AFTER UPDATE OF path ON files
WHEN old.path IS NOT new.path BEGIN
  DELETE FROM vectors WHERE owner_kind = 'chunk'
    AND owner_id IN (SELECT id FROM chunks WHERE file_id = new.id);
  UPDATE embed_corpus SET epoch = epoch + 1;
END;
CREATE TRIGGER embed_symbol_update AFTER UPDATE OF name, qualified_name, signature, docstring
  ON symbols
WHEN old.name IS NOT new.name OR old.qualified_name IS NOT new.qualified_name
  OR old.signature IS NOT new.signature OR old.docstring IS NOT new.docstring BEGIN
  DELETE FROM vectors WHERE owner_kind = 'chunk'
    AND owner_id IN (SELECT id FROM chunks WHERE symbol_id = new.id);
  UPDATE embed_corpus SET epoch = epoch + 1;
END;
CREATE TRIGGER history_fts_insert AFTER INSERT ON history_docs BEGIN
  INSERT INTO history_fts(rowid, subjects) VALUES (new.id, new.subjects);
END;
CREATE TRIGGER history_fts_delete AFTER DELETE ON history_docs BEGIN
  INSERT INTO history_fts(history_fts, rowid, subjects) VALUES ('delete', old.id, old.subjects);
END;
CREATE INDEX served_session ON served(project_id, session) WHERE session IS NOT NULL;
CREATE INDEX memory_keys_memory ON memory_keys(memory_id);
CREATE INDEX citations_path ON citations(path);
CREATE INDEX citations_dirty ON citations(memory_id) WHERE dirty <> 0;
CREATE INDEX citations_stale ON citations(memory_id) WHERE stale <> 0;
CREATE TRIGGER citations_file_changed AFTER UPDATE OF content_hash ON files
WHEN old.content_hash IS NOT new.content_hash BEGIN
  UPDATE citations SET dirty = 1 WHERE path = old.path AND dirty = 0;
END;
CREATE TRIGGER citations_file_removed AFTER DELETE ON files BEGIN
  UPDATE citations SET dirty = 1 WHERE path = old.path AND dirty = 0;
END;
CREATE TRIGGER citations_file_added AFTER INSERT ON files BEGIN
  UPDATE citations SET dirty = 1 WHERE path = new.path AND dirty = 0;
END;
CREATE INDEX audit_action ON audit(project_id, action, ts);
CREATE INDEX git_commits_time ON git_commits(project_id, time);
CREATE INDEX git_commit_files_path ON git_commit_files(path);
CREATE INDEX ingest_keys_memory ON ingest_keys(memory_uid);
CREATE INDEX task_links_ref ON task_links(ref);
CREATE INDEX links_dst_ref ON links(dst_ref) WHERE dst_ref IS NOT NULL;
CREATE INDEX declared_names_name ON declared_names(name);
CREATE INDEX declared_names_file ON declared_names(file_id);
CREATE UNIQUE INDEX memories_uid ON memories(project_id, uid);
CREATE INDEX memories_listing ON memories(project_id, deleted_at, status, kind);
CREATE INDEX memories_updated ON memories(updated_at);
CREATE INDEX memories_hash ON memories(project_id, content_hash);
CREATE INDEX memories_level ON memories(project_id, level, uid) WHERE deleted_at IS NULL;
CREATE INDEX memories_created ON memories(created_at);
CREATE TRIGGER memories_fts_insert AFTER INSERT ON memories BEGIN
  INSERT INTO memories_fts(rowid, title, keywords, body, context)
    SELECT id, title, keywords, body, context FROM memories_fts_src WHERE id = new.id;
END;
CREATE TRIGGER memories_fts_delete BEFORE DELETE ON memories BEGIN
  INSERT INTO memories_fts(memories_fts, rowid, title, keywords, body, context)
    SELECT 'delete', id, title, keywords, body, context FROM memories_fts_src WHERE id = old.id;
END;
CREATE TRIGGER memories_fts_update_old BEFORE UPDATE ON memories
WHEN old.title IS NOT new.title OR old.body IS NOT new.body
  OR old.situation IS NOT new.situation OR old.solution IS NOT new.solution
  OR old.trigger_keywords IS NOT new.trigger_keywords OR old.what_failed IS NOT new.what_failed
  OR old.error_messages IS NOT new.error_messages OR old.files_modified IS NOT new.files_modified
  OR old.scope_paths IS NOT new.scope_paths OR old.scope_symbols IS NOT new.scope_symbols
  OR old.tags IS NOT new.tags OR old.deleted_at IS NOT new.deleted_at OR old.id IS NOT new.id
BEGIN
  INSERT INTO memories_fts(memories_fts, rowid, title, keywords, body, context)
    SELECT 'delete', id, title, keywords, body, context FROM memories_fts_src WHERE id = old.id;
END;
CREATE TRIGGER memories_fts_update_new AFTER UPDATE ON memories
WHEN old.title IS NOT new.title OR old.body IS NOT new.body
  OR old.situation IS NOT new.situation OR old.solution IS NOT new.solution
  OR old.trigger_keywords IS NOT new.trigger_keywords OR old.what_failed IS NOT new.what_failed
  OR old.error_messages IS NOT new.error_messages OR old.files_modified IS NOT new.files_modified
  OR old.scope_paths IS NOT new.scope_paths OR old.scope_symbols IS NOT new.scope_symbols
  OR old.tags IS NOT new.tags OR old.deleted_at IS NOT new.deleted_at OR old.id IS NOT new.id
BEGIN
  INSERT INTO memories_fts(rowid, title, keywords, body, context)
    SELECT id, title, keywords, body, context FROM memories_fts_src WHERE id = new.id;
END;
CREATE INDEX files_decl_only ON files(project_id) WHERE decl_only = 1;
CREATE TRIGGER vectors_epoch_update AFTER UPDATE ON vectors BEGIN
  UPDATE embed_models SET epoch = epoch + 1,
    memory_epoch = memory_epoch + (old.owner_kind = 'memory' OR new.owner_kind = 'memory'),
    chunk_epoch = chunk_epoch + (old.owner_kind = 'chunk' OR new.owner_kind = 'chunk')
  WHERE model IN (old.model, new.model);
END;
CREATE TRIGGER vectors_epoch_delete AFTER DELETE ON vectors BEGIN
  UPDATE embed_models SET epoch = epoch + 1,
    memory_epoch = memory_epoch + (old.owner_kind = 'memory'),
    chunk_epoch = chunk_epoch + (old.owner_kind = 'chunk')
  WHERE model = old.model;
END;
CREATE TRIGGER embed_memory_insert AFTER INSERT ON memories BEGIN
  UPDATE embed_corpus SET epoch = epoch + 1, memory_epoch = memory_epoch + 1;
END;
CREATE TRIGGER embed_memory_delete AFTER DELETE ON memories BEGIN
  DELETE FROM vectors WHERE owner_kind = 'memory' AND owner_id = old.id;
  UPDATE embed_corpus SET epoch = epoch + 1, memory_epoch = memory_epoch + 1;
END;
CREATE TRIGGER embed_memory_update AFTER UPDATE ON memories
WHEN old.title IS NOT new.title OR old.body IS NOT new.body
  OR old.situation IS NOT new.situation OR old.solution IS NOT new.solution
  OR old.trigger_keywords IS NOT new.trigger_keywords OR old.what_failed IS NOT new.what_failed
  OR old.error_messages IS NOT new.error_messages OR old.files_modified IS NOT new.files_modified
  OR old.scope_paths IS NOT new.scope_paths OR old.scope_symbols IS NOT new.scope_symbols
  OR old.tags IS NOT new.tags OR old.deleted_at IS NOT new.deleted_at OR old.id IS NOT new.id
BEGIN
  DELETE FROM vectors WHERE owner_kind = 'memory' AND owner_id = old.id;
  UPDATE embed_corpus SET epoch = epoch + 1, memory_epoch = memory_epoch + 1;
END;
PRAGMA writable_schema=OFF;
COMMIT;
PRAGMA user_version=19;

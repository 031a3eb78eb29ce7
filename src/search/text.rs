//! Turning text into search terms: words split at case changes, `_`, `-`
//! and punctuation, lower-cased and stemmed; runs of Chinese, Japanese and
//! Korean characters cut into overlapping pairs (and single characters),
//! since those scripts do not separate words with spaces.

use rust_stemmers::{Algorithm, Stemmer};
use std::sync::OnceLock;

/// What a term is made of, which decides how much it weighs in a query.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Kind {
    /// A word of a space-separated language, stemmed.
    Word,
    /// A run of joined word parts (`pg_dump` → `pgdump`, `useEffect` → `useeffect`).
    Compound,
    /// Two adjacent CJK characters.
    Pair,
    /// One CJK character.
    Single,
}

/// One term found in a text. `unit` numbers the query word (or CJK
/// character) the term stands for, so a match can be credited to it.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct Term {
    pub text: String,
    pub kind: Kind,
    /// The surface form (lower-cased, not stemmed) for words.
    pub surface: String,
    /// First and last unit covered (a pair covers two characters).
    pub units: (usize, usize),
    /// Byte offset of the term's first character in the text.
    pub offset: usize,
}

fn stemmer() -> &'static Stemmer {
    static STEMMER: OnceLock<Stemmer> = OnceLock::new();
    STEMMER.get_or_init(|| Stemmer::create(Algorithm::English))
}

/// Stem a lower-case word. Only ASCII letters go through the English
/// stemmer; other words are kept as they are.
pub(crate) fn stem(word: &str) -> String {
    if word.len() > 3 && word.bytes().all(|b| b.is_ascii_lowercase()) {
        stemmer().stem(word).into_owned()
    } else {
        word.to_string()
    }
}

/// Common English words that say nothing about which skill is meant.
const STOP_WORDS: &[&str] = &[
    "a",
    "about",
    "after",
    "all",
    "also",
    "am",
    "an",
    "and",
    "any",
    "are",
    "as",
    "at",
    "be",
    "been",
    "before",
    "but",
    "by",
    "can",
    "could",
    "do",
    "does",
    "doing",
    "done",
    "for",
    "from",
    "get",
    "got",
    "had",
    "has",
    "have",
    "help",
    "here",
    "how",
    "i",
    "if",
    "in",
    "into",
    "is",
    "it",
    "its",
    "just",
    "let",
    "like",
    "me",
    "my",
    "need",
    "of",
    "on",
    "one",
    "or",
    "our",
    "please",
    "should",
    "so",
    "some",
    "something",
    "that",
    "the",
    "their",
    "them",
    "then",
    "there",
    "these",
    "this",
    "those",
    "to",
    "up",
    "us",
    "use",
    "used",
    "using",
    "via",
    "want",
    "was",
    "way",
    "we",
    "what",
    "when",
    "where",
    "which",
    "while",
    "who",
    "why",
    "will",
    "with",
    "without",
    "would",
    "you",
    "your",
];

pub(crate) fn is_stop_word(word: &str) -> bool {
    STOP_WORDS.binary_search(&word).is_ok()
}

/// CJK characters that carry grammar rather than meaning (particles,
/// pronouns, question words): not searched on their own.
const STOP_CHARS: &str = "的了吗呢吧啊我你他她它们是在有和与或把被给用要想请帮个一这那些么怎如何什哪里能会可以就都也还之其将让从对于为及并等着过所且而已很再";
const STOP_KANA_HANGUL: &str =
    "のはをにがでともへやかなねよだですますしたいるこれそれあの이가은는을를에의도로와과한하고있다";

fn is_stop_char(c: char) -> bool {
    STOP_CHARS.contains(c) || STOP_KANA_HANGUL.contains(c)
}

/// Chinese, Japanese and Korean characters (ideographs, kana, hangul).
pub(crate) fn is_cjk(c: char) -> bool {
    matches!(c as u32,
        0x3040..=0x30FF     // hiragana, katakana
        | 0x3400..=0x4DBF   // CJK extension A
        | 0x4E00..=0x9FFF   // CJK unified ideographs
        | 0xF900..=0xFAFF   // compatibility ideographs
        | 0xAC00..=0xD7AF   // hangul syllables
        | 0x1100..=0x11FF   // hangul jamo
        | 0x3130..=0x318F   // hangul compatibility jamo
        | 0x20000..=0x2FFFF // extensions B and later
    )
}

/// Split `text` into terms. `keep_stop_words` is off for both sides of a
/// search: stop words are dropped everywhere.
pub(crate) fn terms(text: &str) -> Vec<Term> {
    let mut out = Vec::new();
    let mut unit = 0usize;
    let mut chars = text.char_indices().peekable();
    while let Some(&(start, c)) = chars.peek() {
        if is_cjk(c) {
            let mut run = Vec::new();
            while let Some(&(i, c)) = chars.peek() {
                if !is_cjk(c) {
                    break;
                }
                run.push((i, c));
                chars.next();
            }
            cjk_terms(&run, &mut unit, &mut out);
        } else if c.is_alphanumeric() {
            // A token: word characters joined by `_`, `-`, `.` (no spaces).
            let mut end = start;
            while let Some(&(i, c)) = chars.peek() {
                let joiner = matches!(c, '_' | '-' | '.' | '\'');
                if (!c.is_alphanumeric() || is_cjk(c)) && !joiner {
                    break;
                }
                end = i + c.len_utf8();
                chars.next();
            }
            token_terms(&text[start..end], start, &mut unit, &mut out);
        } else {
            chars.next();
        }
    }
    out
}

/// The parts of one space-free token: `pg_dump` → `pg`, `dump` (+ `pgdump`);
/// `useEffect` → `use`, `effect` (+ `useeffect`); `s3-presigned-urls` →
/// `s3`, `presign`, `url`.
fn token_terms(token: &str, offset: usize, unit: &mut usize, out: &mut Vec<Term>) {
    let token = token.trim_end_matches(['.', '-', '_', '\'']);
    let mut parts: Vec<String> = Vec::new();
    let mut compound_worthy = false;
    for piece in token.split(['_', '-', '.', '\'']) {
        if piece.is_empty() {
            continue;
        }
        let split = split_case(piece);
        if split.len() > 1 {
            compound_worthy = true;
        }
        parts.extend(split.into_iter().map(|p| p.to_lowercase()));
    }
    if token.contains('_') {
        compound_worthy = true;
    }
    // Possessives and contractions: "skill's" → "skill".
    if token.contains('\'') {
        compound_worthy = false;
        if matches!(
            parts.last().map(String::as_str),
            Some("s" | "t" | "re" | "ve" | "ll" | "d")
        ) {
            parts.pop();
        }
    }
    let first_unit = *unit;
    for part in &parts {
        if is_stop_word(part) && parts.len() == 1 {
            continue;
        }
        if is_stop_word(part) {
            continue;
        }
        out.push(Term {
            text: stem(part),
            kind: Kind::Word,
            surface: part.clone(),
            units: (*unit, *unit),
            offset,
        });
        *unit += 1;
    }
    if compound_worthy && parts.len() > 1 && *unit > first_unit {
        let joined: String = parts.concat();
        if joined.len() <= 32 {
            out.push(Term {
                surface: joined.clone(),
                text: joined,
                kind: Kind::Compound,
                units: (first_unit, *unit - 1),
                offset,
            });
        }
    }
}

/// `useEffect` → `use`, `Effect`; `HTTPServer` → `HTTP`, `Server`;
/// `k8s`, `ec2` stay whole.
fn split_case(piece: &str) -> Vec<&str> {
    let chars: Vec<(usize, char)> = piece.char_indices().collect();
    let mut cuts = vec![0];
    for w in 1..chars.len() {
        let (i, c) = chars[w];
        let prev = chars[w - 1].1;
        let next = chars.get(w + 1).map(|&(_, c)| c);
        let lower_to_upper = prev.is_lowercase() && c.is_uppercase();
        let acronym_end =
            prev.is_uppercase() && c.is_uppercase() && next.is_some_and(char::is_lowercase);
        if lower_to_upper || acronym_end {
            cuts.push(i);
        }
    }
    cuts.push(piece.len());
    cuts.windows(2).map(|w| &piece[w[0]..w[1]]).collect()
}

fn cjk_terms(run: &[(usize, char)], unit: &mut usize, out: &mut Vec<Term>) {
    let base = *unit;
    for (i, &(offset, c)) in run.iter().enumerate() {
        if !is_stop_char(c) {
            out.push(Term {
                text: c.to_string(),
                kind: Kind::Single,
                surface: c.to_string(),
                units: (base + i, base + i),
                offset,
            });
        }
        if let Some(&(_, next)) = run.get(i + 1) {
            if !(is_stop_char(c) && is_stop_char(next)) {
                let pair: String = [c, next].iter().collect();
                out.push(Term {
                    surface: pair.clone(),
                    text: pair,
                    kind: Kind::Pair,
                    units: (base + i, base + i + 1),
                    offset,
                });
            }
        }
    }
    *unit += run.len();
}

/// Words that mean the same thing in a task description ("shrink" an image
/// is "resize" or "compress" it). Written as plain words; stemmed on load.
/// Each group is symmetric. General vocabulary of tools and tasks only.
const SYNONYMS: &[&[&str]] = &[
    &[
        "create",
        "make",
        "new",
        "generate",
        "add",
        "build",
        "scaffold",
        "init",
        "initialize",
        "bootstrap",
    ],
    &[
        "delete", "remove", "drop", "erase", "purge", "wipe", "discard",
    ],
    &[
        "fix",
        "repair",
        "debug",
        "troubleshoot",
        "resolve",
        "solve",
        "diagnose",
    ],
    &["find", "search", "locate", "lookup", "discover", "query"],
    &["convert", "transform", "export", "turn", "transcode"],
    &[
        "shrink",
        "compress",
        "reduce",
        "minify",
        "smaller",
        "resize",
        "downscale",
        "optimize",
    ],
    &["run", "execute", "launch", "start", "invoke", "trigger"],
    &["stop", "kill", "terminate", "halt", "cancel", "abort"],
    &["show", "display", "list", "view", "print", "inspect"],
    &[
        "edit", "modify", "change", "update", "alter", "tweak", "adjust", "rewrite",
    ],
    &["read", "parse", "extract", "pull", "scrape", "fetch"],
    &["write", "save", "store", "persist", "dump"],
    &["send", "email", "mail", "message", "notify"],
    &["test", "check", "verify", "validate", "assert", "lint"],
    &["deploy", "release", "ship", "publish", "rollout"],
    &["undo", "revert", "rollback", "restore", "recover"],
    &[
        "lost",
        "lose",
        "missing",
        "vanish",
        "disappear",
        "gone",
        "deleted",
    ],
    &[
        "image",
        "picture",
        "photo",
        "img",
        "screenshot",
        "png",
        "jpeg",
        "jpg",
    ],
    &["document", "doc", "docs", "paper", "report"],
    &["merge", "combine", "join", "concatenate", "concat", "unite"],
    &["split", "divide", "separate", "chunk", "cut"],
    &["download", "fetch", "retrieve"],
    &["upload", "push"],
    &["schedule", "cron", "timer", "recurring", "periodic"],
    &[
        "error",
        "bug",
        "failure",
        "crash",
        "exception",
        "broken",
        "fail",
    ],
    &[
        "slow",
        "performance",
        "latency",
        "speed",
        "fast",
        "profile",
        "bottleneck",
    ],
    &["secret", "password", "credential", "token", "apikey"],
    &["database", "db", "sql"],
    &[
        "summary",
        "summarize",
        "summarise",
        "digest",
        "tldr",
        "recap",
    ],
    &["meeting", "calendar", "appointment", "event", "invite"],
    &["spreadsheet", "excel", "xlsx", "sheet", "csv", "workbook"],
    &[
        "chart",
        "graph",
        "plot",
        "visualize",
        "visualise",
        "visualization",
        "dashboard",
    ],
    &["video", "movie", "clip", "footage", "mp4"],
    &["audio", "sound", "music", "mp3", "podcast", "voice"],
    &[
        "translate",
        "localize",
        "localise",
        "i18n",
        "l10n",
        "internationalization",
        "translation",
    ],
    &["backup", "snapshot", "archive"],
    &["container", "docker", "image"],
    &["kubernetes", "k8s", "kubectl", "cluster", "pod"],
    &["log", "logs", "logging", "trace", "tracing"],
    &[
        "monitor",
        "monitoring",
        "alert",
        "alerting",
        "observability",
        "metrics",
    ],
    &["permission", "access", "authorization", "role", "rbac"],
    &["login", "signin", "authentication", "auth", "sso", "oauth"],
    &["website", "site", "web", "page", "webpage", "html"],
    &["table", "tabular", "rows", "columns"],
    &["text", "words", "wording", "prose", "copy"],
    &["review", "audit", "critique", "feedback"],
    &["commit", "changeset", "revision"],
    &[
        "dependency",
        "dependencies",
        "package",
        "library",
        "crate",
        "module",
    ],
    &["install", "setup", "configure", "provision"],
    &["question", "ask", "faq"],
    &[
        "money", "invoice", "payment", "billing", "expense", "budget",
    ],
    &["sign", "signature", "signing"],
    &["scan", "scanned", "ocr"],
    &["form", "fillable", "field"],
    &["api", "endpoint", "rest", "http"],
    &["machine", "server", "host", "vm", "instance"],
];

/// Synonym lookup by stemmed term.
pub(crate) fn synonyms(term: &str) -> &'static [String] {
    static MAP: OnceLock<std::collections::HashMap<String, Vec<String>>> = OnceLock::new();
    let map = MAP.get_or_init(|| {
        let mut map: std::collections::HashMap<String, Vec<String>> = Default::default();
        for group in SYNONYMS {
            let stems: Vec<String> = group.iter().map(|w| stem(w)).collect();
            for s in &stems {
                let entry = map.entry(s.clone()).or_default();
                for other in &stems {
                    if other != s && !entry.contains(other) {
                        entry.push(other.clone());
                    }
                }
            }
        }
        map
    });
    map.get(term).map(Vec::as_slice).unwrap_or(&[])
}

/// Edit distance with adjacent transpositions (optimal string alignment),
/// giving up once it exceeds `max`.
pub(crate) fn bounded_distance(a: &[u8], b: &[u8], max: usize) -> Option<usize> {
    if a.len().abs_diff(b.len()) > max {
        return None;
    }
    let n = b.len();
    let mut prev2 = vec![0usize; n + 1];
    let mut prev: Vec<usize> = (0..=n).collect();
    let mut cur = vec![0usize; n + 1];
    for i in 1..=a.len() {
        cur[0] = i;
        let mut row_min = cur[0];
        for j in 1..=n {
            let cost = usize::from(a[i - 1] != b[j - 1]);
            let mut v = (prev[j] + 1).min(cur[j - 1] + 1).min(prev[j - 1] + cost);
            if i > 1 && j > 1 && a[i - 1] == b[j - 2] && a[i - 2] == b[j - 1] {
                v = v.min(prev2[j - 2] + 1);
            }
            cur[j] = v;
            row_min = row_min.min(v);
        }
        if row_min > max {
            return None;
        }
        std::mem::swap(&mut prev2, &mut prev);
        std::mem::swap(&mut prev, &mut cur);
    }
    (prev[n] <= max).then_some(prev[n])
}

/// Common task words of Chinese, Japanese and Korean with their English
/// equivalents, so a question in one language finds a skill described in
/// another. General vocabulary of software and office work only.
const GLOSSARY: &[(&str, &str)] = &[
    // Chinese
    ("提取", "extract"),
    ("抽取", "extract"),
    ("文字", "text"),
    ("文本", "text"),
    ("合并", "merge combine"),
    ("拆分", "split"),
    ("分割", "split"),
    ("转换", "convert"),
    ("图片", "image"),
    ("图像", "image"),
    ("照片", "photo image"),
    ("压缩", "compress"),
    ("缩小", "resize shrink"),
    ("裁剪", "crop"),
    ("视频", "video"),
    ("音频", "audio"),
    ("数据库", "database"),
    ("备份", "backup"),
    ("恢复", "restore recover"),
    ("迁移", "migrate migration"),
    ("部署", "deploy"),
    ("发布", "release publish"),
    ("回滚", "rollback"),
    ("容器", "container"),
    ("镜像", "image container"),
    ("集群", "cluster"),
    ("服务器", "server"),
    ("日志", "log"),
    ("监控", "monitor"),
    ("告警", "alert"),
    ("报警", "alert"),
    ("性能", "performance"),
    ("测试", "test"),
    ("单元测试", "unit test"),
    ("调试", "debug"),
    ("错误", "error"),
    ("修复", "fix"),
    ("漏洞", "vulnerability security"),
    ("安全", "security"),
    ("密码", "password"),
    ("密钥", "key secret"),
    ("加密", "encrypt"),
    ("解密", "decrypt"),
    ("证书", "certificate"),
    ("权限", "permission"),
    ("登录", "login"),
    ("认证", "authentication"),
    ("接口", "api"),
    ("文档", "document documentation"),
    ("表格", "table spreadsheet"),
    ("电子表格", "spreadsheet"),
    ("图表", "chart"),
    ("报告", "report"),
    ("总结", "summary summarize"),
    ("摘要", "summary"),
    ("翻译", "translate"),
    ("邮件", "email"),
    ("会议", "meeting"),
    ("日历", "calendar"),
    ("日程", "schedule calendar"),
    ("定时", "schedule cron"),
    ("任务", "task job"),
    ("脚本", "script"),
    ("命令", "command"),
    ("终端", "terminal shell"),
    ("提交", "commit"),
    ("分支", "branch"),
    ("冲突", "conflict"),
    ("代码", "code"),
    ("审查", "review"),
    ("评审", "review"),
    ("重构", "refactor"),
    ("依赖", "dependency"),
    ("安装", "install"),
    ("配置", "config configure"),
    ("环境", "environment"),
    ("变量", "variable"),
    ("网页", "web page"),
    ("网站", "website"),
    ("前端", "frontend"),
    ("后端", "backend"),
    ("爬虫", "scrape crawler"),
    ("抓取", "scrape fetch"),
    ("下载", "download"),
    ("上传", "upload"),
    ("搜索", "search"),
    ("查找", "find search"),
    ("查询", "query"),
    ("删除", "delete"),
    ("创建", "create"),
    ("生成", "generate"),
    ("编写", "write"),
    ("写", "write"),
    ("读取", "read"),
    ("解析", "parse"),
    ("格式", "format"),
    ("格式化", "format"),
    ("签名", "sign signature"),
    ("表单", "form"),
    ("填写", "fill"),
    ("扫描", "scan ocr"),
    ("识别", "recognize ocr"),
    ("字幕", "subtitle caption"),
    ("发票", "invoice"),
    ("报销", "expense"),
    ("预算", "budget"),
    ("财务", "finance accounting"),
    ("合同", "contract"),
    ("招聘", "hiring recruit"),
    ("面试", "interview"),
    ("简历", "resume"),
    ("数据", "data"),
    ("分析", "analyze analysis"),
    ("可视化", "visualize visualization"),
    ("清洗", "clean"),
    ("模型", "model"),
    ("训练", "train"),
    ("机器学习", "machine learning"),
    ("统计", "statistics"),
    ("国际化", "i18n internationalization"),
    ("本地化", "localize"),
    ("无障碍", "accessibility"),
    ("移动", "mobile"),
    ("应用", "app application"),
    ("手机", "mobile phone"),
    ("通知", "notification notify"),
    ("缓存", "cache"),
    ("队列", "queue"),
    ("索引", "index"),
    ("慢查询", "slow query"),
    ("优化", "optimize"),
    ("版本", "version"),
    ("更新日志", "changelog"),
    ("规范", "convention standard"),
    ("中文", "chinese"),
    // Japanese
    ("抽出", "extract"),
    ("画像", "image"),
    ("変換", "convert"),
    ("翻訳", "translate"),
    ("削除", "delete"),
    ("検索", "search"),
    ("作成", "create"),
    ("結合", "merge"),
    ("分割", "split"),
    ("圧縮", "compress"),
    ("動画", "video"),
    ("音声", "audio voice"),
    ("デプロイ", "deploy"),
    ("バックアップ", "backup"),
    ("データベース", "database"),
    ("テスト", "test"),
    ("ログ", "log"),
    ("メール", "email"),
    ("会議", "meeting"),
    ("請求書", "invoice"),
    ("翻訳する", "translate"),
    ("文書", "document"),
    ("表計算", "spreadsheet"),
    ("グラフ", "chart graph"),
    ("コミット", "commit"),
    ("ブランチ", "branch"),
    ("コンテナ", "container"),
    ("セキュリティ", "security"),
    // Korean
    ("추출", "extract"),
    ("이미지", "image"),
    ("변환", "convert"),
    ("번역", "translate"),
    ("삭제", "delete"),
    ("검색", "search"),
    ("생성", "create"),
    ("병합", "merge"),
    ("압축", "compress"),
    ("동영상", "video"),
    ("배포", "deploy"),
    ("백업", "backup"),
    ("데이터베이스", "database"),
    ("테스트", "test"),
    ("로그", "log"),
    ("이메일", "email"),
    ("회의", "meeting"),
    ("문서", "document"),
    ("보안", "security"),
    ("커밋", "commit"),
    ("컨테이너", "container"),
    ("스프레드시트", "spreadsheet"),
    ("차트", "chart"),
    ("요약", "summary summarize"),
];

/// English stems for the glossary words found in `text`, with the byte
/// range each was found at. Longer words win over the words inside them.
pub(crate) fn glossary_matches(text: &str) -> Vec<(usize, usize, &'static [String])> {
    static ENTRIES: OnceLock<Vec<(&'static str, Vec<String>)>> = OnceLock::new();
    let entries = ENTRIES.get_or_init(|| {
        let mut entries: Vec<(&'static str, Vec<String>)> = GLOSSARY
            .iter()
            .map(|(k, v)| (*k, v.split_whitespace().map(stem).collect()))
            .collect();
        // Longest first, so 数据库 is taken before 数据.
        entries.sort_by(|a, b| b.0.len().cmp(&a.0.len()).then(a.0.cmp(b.0)));
        entries
    });
    if !text.chars().any(is_cjk) {
        return Vec::new();
    }
    let mut taken: Vec<(usize, usize)> = Vec::new();
    let mut out = Vec::new();
    for (key, english) in entries {
        for (start, _) in text.match_indices(key) {
            let end = start + key.len();
            if taken.iter().any(|&(s, e)| start < e && s < end) {
                continue;
            }
            taken.push((start, end));
            out.push((start, end, english.as_slice()));
        }
    }
    out.sort_by_key(|m| m.0);
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn texts(s: &str) -> Vec<String> {
        terms(s).into_iter().map(|t| t.text).collect()
    }

    #[test]
    fn stop_words_sorted() {
        assert!(STOP_WORDS.windows(2).all(|w| w[0] < w[1]));
    }

    #[test]
    fn splits_identifiers() {
        assert_eq!(texts("pg_dump"), ["pg", "dump", "pgdump"]);
        assert_eq!(
            texts("useEffect cleanup"),
            ["effect", "useeffect", "cleanup"]
        );
        assert_eq!(texts("HTTPServer"), ["http", "server", "httpserver"]);
        assert_eq!(texts("s3-presigned-urls"), ["s3", "presign", "url"]);
        assert_eq!(texts("k8s ec2"), ["k8s", "ec2"]);
    }

    #[test]
    fn stems_and_drops_stop_words() {
        assert_eq!(texts("How do I resize the images?"), ["resiz", "imag"]);
        assert_eq!(texts("the skill's files"), ["skill", "file"]);
    }

    #[test]
    fn cjk_pairs_and_singles() {
        let t = texts("提取PDF文字");
        assert_eq!(t, ["提", "提取", "取", "pdf", "文", "文字", "字"]);
        // Stop characters alone are dropped; pairs of two stop characters too.
        assert_eq!(texts("怎么"), Vec::<String>::new());
    }

    #[test]
    fn units_number_query_words() {
        let t = terms("resize big pictures");
        let units: Vec<_> = t.iter().map(|t| t.units).collect();
        assert_eq!(units, [(0, 0), (1, 1), (2, 2)]);
    }

    #[test]
    fn distance() {
        assert_eq!(bounded_distance(b"kubernets", b"kubernetes", 2), Some(1));
        assert_eq!(bounded_distance(b"postgress", b"postgres", 1), Some(1));
        assert_eq!(bounded_distance(b"teh", b"the", 1), Some(1));
        assert_eq!(bounded_distance(b"abc", b"xyz", 2), None);
    }

    #[test]
    fn synonyms_are_symmetric() {
        assert!(synonyms(&stem("shrink")).contains(&stem("resize")));
        assert!(synonyms(&stem("resize")).contains(&stem("shrink")));
    }
}

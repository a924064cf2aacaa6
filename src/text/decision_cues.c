/*
 * decision_cues.c - the cue tables of the decision detector, one per
 * language (the shape is decision_lang.h, the pattern syntax cues.h).
 *
 * Why these cues. A decision in a commit or an issue is said in few ways:
 * an explicit verb of deciding or choosing ("decided to", "решили
 * сделать", "avons choisi"), a contrast of the chosen with what was set
 * aside ("X instead of Y", "X вместо Y", "X plutôt que Y", "in favour
 * of"), a replacement ("replace A with B", "заменил A на B", "remplace A
 * par B", and the passives), a transition ("switch from A to B",
 * "переход на", "passage à"), dropping something ("stop using A", "отказ
 * от A", "abandon de A") and preference ("prefer X over Y"). Weights (in
 * hundredths) say how sure a cue alone is: explicit verbs 60-70; contrast
 * alone 45, since "returns X instead of Y" is as frequent in commits as
 * "use X instead of Y" and only the evidence around it tells them apart
 * (decision.c); replacements, transitions and drops 50-60.
 *
 * The other lists are the evidence: reason markers, hedges, questions,
 * verbs of adoption and of behaviour, wording words. They are generic
 * words of each language, not phrases of the labelled set: the set was
 * split in a development and a held-out third (tests/data/decisions/README)
 * and the figures on both are in docs/internals/decisions.md.
 *
 * Masks keep cue words that state nothing: "decide which", "режим отказа
 * от" (a 1C term), "возможность отказа" (a feature), "permet de choisir",
 * "passage à la ligne", "qui n'est plus utilisé" (a relative clause).
 */
#include "common.h"
#include "text/decision_lang.h"

#define E  MN_DECISION_EXPLICIT
#define CT MN_DECISION_CONTRAST
#define RP MN_DECISION_REPLACE
#define TR MN_DECISION_TRANSITION
#define DR MN_DECISION_DROP
#define PF MN_DECISION_PREFER

/* ------------------------------------------------------------------ English */

static const mn_dec_cue en_cues[] = {
    {"decid*|decision to|that|against|not|upon", E, 70},
    {"decision to|was|is|:", E, 65},
    {"been|was|were|is|are decided", E, 65},
    {"chose|opted|elected|picked", E, 65},
    {"chose|choose|pick* {C} over {A}", E, 70},
    {"went|settled with|on|upon", E, 65},
    {"was|were|been|is chosen|selected", E, 60},
    {"let s|us ~1 use|go|switch|stick|keep|move|adopt|drop|standardi*", E, 65},
    {"we|i ll|will|re ~2 use|go|switch|stick|move|adopt|drop|keep", E, 60},
    {"^ going forward", E, 60},
    {"from now on", E, 65},
    {"agreed ~1 to|that", E, 60},
    {"intentionally|deliberately|purposely", E, 55},
    {"standardi* on {C}", E, 60},
    {"now using|uses", E, 50},
    {"prefer* {C} over|to {A}", PF, 60},
    {"recommend* {C} over {A}", PF, 60},
    {"we|i prefer*", PF, 60},
    {"drop*|remov*|delet*|omit*|deprecat*|retir*|ditch* {S} in favo* of {C}", DR, 65},
    {"put off in favo* of {C}", DR, 60},
    {"in favo* of {C}", CT, 50},
    {"instead of {A}", CT, 45},
    {"rather than {A}", CT, 45},
    {"replac* {S} with|by {C}", RP, 55},
    {"^ replacing|dropping|removing {S} we|i|,", RP, 50},
    {"{S} replaced|superseded with|by {C}", RP, 55},
    {"switch*|mov*|migrat*|port* from {S} to {C}", TR, 60},
    {"switch* to {C}", TR, 55},
    {"switch* over to {C}", TR, 55},
    {"switch* {S} to {C}", TR, 55},
    {"migrate|migrated|migrating|migrates to {C}", TR, 55},
    {"mov* over|away from {S}", DR, 55},
    {"mov* to {C}", TR, 40},
    {"no longer use*|using", DR, 60},
    {"stop*|stopped using {S}", DR, 60},
    {"don|do t|not use {S} any|anymore", DR, 60},
    {"ditch*|abandon* {S}", DR, 55},
};

static const char *const en_masks[] = {
    "decid* whether|which|what|how|if|where|when|who",
    "need*|have|has|must ~1 to decide",
    "to be decided",
    "switch statement*|case*|expression*|between",
    "a|the|this|new|add|adds|added ~1 switch|switches",
    "context switch*",
    "switch* between",
    "mov* to ~2 directory|folder|file|module|namespace|package|crate|repository|repo|dir|section",
};

static const char *const en_reasons[] = {
    "because",
    "because of",
    "since",
    ", as",
    "so that",
    ", so",
    "in order to",
    "due to",
    "given that",
    "in accordance with",
    "in the interest of",
    "as part of",
    "otherwise",
    "or else",
    "for ~2 *ity|*ance|*ence|*ency|*ancy|*ness",
    "to avoid|allow|ensure|prevent|keep|reduce|simplify|improve|support|fix|speed|limit|enable",
    "to be able",
    "to get rid",
    "per ~1 request|review|spec|specification|rfc|standard|guidelines|convention|policy|docs",
};

static const char *const en_reason_masks[] = {
    "since ~1 version|v|then|commit|release|revision|long|forever|ages",
    ", as well|of|before|in|is|such|if|for",
};

static const char *const en_lead[] = {
    ("^ this|that|it|which ~1 prevents|avoids|fixes|solves|allows|makes|ensures|removes|reduces|"
     "simplifies|improves|keeps|helps|means|lets"),
    "^ it s|is ~1 faster|simpler|easier|more|less|better|cleaner|safer|smaller",
    "^ no one",
    "^ nobody",
    "^ because",
};

static const char *const en_consequence[] = {
    "therefore", "hence", "thus", "that s why", "this is why", "which is why", "^ so ,",
};

static const char *const en_hedges[] = {
    "would",         "could",       "might",    "maybe",   "perhaps",
    "possibly",      "should",      "shall",    "ought",   "propose|proposing|proposal",
    "suggest*",      "consider*",   "wonder*",  "wish*",   "hope*",
    "ideally",       "eventually",  "todo",     "fixme",   "investigat*",
    "in the future", "if we|you|i", "not sure", "whether",
};

static const char *const en_hedge_masks[] = {
    "where|when|if ~1 possible|possibly",
};

static const char *const en_questions[] = {
    "^ why|should|shall|could|would|is|are",
    "^ how|what about",
    "^ any reason",
};

static const char *const en_adopt[] = {
    "use|uses|used|using|utili*|employ*|pick*|adopt*|rely|relies|switch*|link*|pass|"
    "passes|passing|resolve*|iterate*|create*|implement*|introduc*|write|written|wrote|recommend*|"
    "refer*|assume*|go|goes|went",
};

static const char *const en_behave[] = {
    "return*|show*|display*|print*|output*|emit*|produc*|throw*|rais*|report*|appear*|say|says|"
    "said|"
    "mention*|point*|got|gets|get|getting|receiv*|yield*|contain*|sent|sends|lead*|led|result*|"
    "generat*|fail*|fix|fixes|fixed|fixing|bug|bugfix|regression",
};

static const char *const en_wording[] = {
    "typo*|wording|spelling|grammar|word|words|phrase|phrasing|term|terms|rephras*|reword*|"
    "translation|capitali*",
};

static const char *const en_ui[] = {
    "icon|icons|logo|button|buttons|label|labels|badge|badges|tooltip|colour|color|wording",
};

static const char *const en_mistakes[] = {
    "accidentally|mistakenly|wrongly|incorrectly|erroneously",
    "by mistake",
};

static const char *const en_past[] = {
    "after|before|since|during ~1 "
    "switching|moving|migrating|migration|switch|move|replacing|dropping",
};

static const char *const en_first[] = {"we|i|our|us"};
static const char *const en_version[] = {"version|versions|release"};
static const char *const en_aux[] = {"is|are|was|were|be|been|has|have|had|being|now|all"};

/* ------------------------------------------------------------------ Russian */

static const mn_dec_cue ru_cues[] = {
    {"решил*|решено|решение ~2 @inf", E, 70},
    {"решил*|решено|решение ~1 не ~1 @inf", E, 70},
    {"принял*|принято|приняли решение", E, 70},
    {"выбран*|выбрал*|выбрали", E, 50},
    {"договорились", E, 60},
    {"остановились на", E, 65},
    {"будем|буду ~3 использовать|писать|делать|переходить|применять", E, 60},
    {"теперь ~2 используем|используется|используются|пишем", E, 55},
    {"больше не ~1 использ*|используем|нужен|нужна|нужно", DR, 55},
    {"не ~1 использ* больше|более", DR, 55},
    {"намеренно|сознательно|умышленно", E, 55},
    {"предпоч*", PF, 55},
    {"отказ*|отказал*|отказыва* от {S} в пользу {C}", DR, 65},
    {"в пользу {C}", CT, 50},
    {"отказ*|отказал*|отказыва* от {S}", DR, 55},
    {"убрал*|убрано|убраны|убрана|удалил*|удалено|удалена|удален* использование {S}", DR, 50},
    {"вместо {A}", CT, 45},
    {"взамен {A}", CT, 45},
    {"замен*|поменял*|поменяли|меняю|меняет {S} на {C}", RP, 55},
    {"{S} заменил*|заменили|поменял*|поменяли на {C}", RP, 55},
    {"замена|заменил*|заменили на {C}", RP, 50},
    {"{S} заменен*|заменено|заменена|заменены на {C}", RP, 55},
    {"заменены|заменен*|заменён* {C}", RP, 45},
    {"переход|перешл*|перешел|перейти|переходим|переходит|переезд|переехал* с|со {S} на {C}", TR,
     60},
    {"переход|перешл*|перешел|перейти|переходим|переходит|переезд|переехал*|переведен*|переделан*|"
     "переделал*|мигрир*|мигрировал* на {C}",
     TR, 55},
};

static const char *const ru_masks[] = {
    "возможност* ~1 отказ*", "режим* ~1 отказ*",
    "параметр* ~1 отказ*",   "отказ* в доступе|доступа|обслуживании",
    "переход* к|в|по|между", "решение проблем*|задач*|вопрос*",
};

static const char *const ru_reasons[] = {
    "потому что|чтоб",
    "потому , что",
    "так как",
    "т.к",
    "поскольку",
    "чтобы",
    "для того",
    "из-за",
    "ради",
    "иначе",
    "ибо",
    "благодаря",
    "для *ния|*ения|*ания|*тия|*ции|*ности",
    ", что ~1 убирает|позволяет|решает|устраняет|упрощает|избавляет|ускоряет|закрывает",
    "как ~1 принято",
};

static const char *const ru_reason_masks[] = {
    "так как ~1 и",
};

static const char *const ru_lead[] = {
    "^ это|что|так ~1 позволяет|позволит|убирает|решает|устраняет|упрощает|ускоряет|избавляет",
    "^ потому что",
    "^ так как",
};

static const char *const ru_consequence[] = {
    "поэтому", "следовательно", "так что", "в итоге", "в результате",
};

static const char *const ru_hedges[] = {
    "бы",          "можно",   "хотелось",    "хотел*", "предлагаю|предлагаем|предлагается",
    "предложение", "стоит",   "стоило",      "может",  "наверное",
    "если",        "следует", "в будущем",   "todo",   "планиру*",
    "надеюсь",     "попытка", "попробовать", "^ @inf", /* a sentence opened by an infinitive is a
                                                          task: "Заменить X на Y" */
};

static const char *const ru_hedge_masks[] = {
    "где|когда|по ~2 возможно|можно|возможности",
};

static const char *const ru_questions[] = {
    "^ почему|зачем",
    "^ стоит|есть ли",
    "^ а чего|что",
    "^ как насчет",
};

static const char *const ru_adopt[] = {
    "использ*|юза*|примен*|перепис*|перевел*|перевод*|пишем|пишу|беру|берем|ставим|подключ*",
};

static const char *const ru_behave[] = {
    "возвращ*|выда*|вывод*|выводил*|отобража*|показыв*|генерир*|выбрасыва*|получа*|попада*|попал*|"
    "был|было|была|были|идет|идёт|создава*|записыва*|запис*|исправ*|ошибк*|баг*|неверн*|некоррект*|"
    "ошибочно|вернул*|отображал*|подставля*|выводит*",
};

static const char *const ru_wording[] = {
    "опечат*|слово|слова|формулир*|орфограф*|надпис*|текст|текста|тексте|переименов*|название|"
    "имя|имена",
};

static const char *const ru_ui[] = {
    "пиктограмм*|иконк*|значок|значки|картинк*|кнопк*|цвет*",
};

static const char *const ru_mistakes[] = {
    "ошибочно|случайно|нечаянно",
    "по ошибке",
};

static const char *const ru_past[] = {
    "после|до|при ~1 перехода|переходе|переезда|замены|отказа|миграции",
    "во время ~1 перехода|переходе|переезда|замены|отказа|миграции",
};

static const char *const ru_first[] = {"мы|я|нам|нас"};
static const char *const ru_version[] = {"верси*|релиз*"};
static const char *const ru_aux[] = {"было|был|была|были|будет|теперь|полностью"};

/* ------------------------------------------------------------------- French */

static const mn_dec_cue fr_cues[] = {
    {"decid*|decision de|d|que", E, 70},
    {"avons|ai|a|ont|ete|avez ~1 decide*", E, 70},
    {"avons|ai|a|ont ~1 choisi|opte|retenu", E, 65},
    {"choisi de|d", E, 60},
    {"fait|faisons|fais|faire le choix", E, 65},
    {"notre|mon choix", E, 55},
    {"opt* pour", E, 65},
    {"on|nous part|partons|reste|restons sur", E, 60},
    {"desormais|dorenavant ~3 utilis*", E, 55},
    {"preferons|prefere|preferer|privilegi*", PF, 55},
    {"abandon*|renonc* ~1 de|du|des|d|l|le|la|les|a {S} au|en profit|faveur de|d|du|des {C}", DR,
     65},
    {"au|en profit|faveur de|d|du|des {C}", CT, 50},
    {"abandon de|du|des|d {S}", DR, 50},
    {"abandonn*|abandonnons|renonc* ~1 a|au|aux {S}", DR, 50},
    {"{S} n est|sont plus utilise*", DR, 55},
    {"ne plus utiliser {S}", DR, 55},
    {"n utilis* plus {S}", DR, 55},
    {"se passer de|d {S}", DR, 50},
    {"au lieu de|d|des|du {A}", CT, 45},
    {"plutot que|qu {A}", CT, 45},
    {"a la place de|d|des|du {A}", CT, 45},
    {"remplac* {S} par {C}", RP, 55},
    {"{S} remplace|remplacee|remplaces|remplacees par {C}", RP, 55},
    {"est|sont|ete remplace|remplacee|remplaces|remplacees par {C}", RP, 50},
    {"passage|migration|migr*|pass*|bascul* de|du|d|des {S} a|au|aux|vers {C}", TR, 60},
    {"passage|passe|passons|passent a|au|aux {C}", TR, 55},
    {"migr*|migration|bascul* vers|sur {C}", TR, 55},
};

static const char *const fr_masks[] = {
    "permet* ~2 choisir|choix|choisi",
    "pass* a la ligne",
    "passage a l heure",
    "qui n est|sont plus",
    "abandon a",
    "remplac* ~1 le|les|la mot|mots|terme|termes|texte|libelle",
};

static const char *const fr_reasons[] = {
    "parce qu|que",
    "car",
    "puisqu|puisque",
    "afin de|d|qu|que",
    "pour que|qu",
    "etant donne",
    "vu que",
    "grace a|au|aux",
    "a cause de|du|des|d",
    "du fait",
    "sinon",
    "comme ca|cela",
    "evitant|permettant|simplifiant",
    "pour *er|*ir|*re|*oir",
    "pour ne|n pas|plus",
    ", ce qui ~1 permet|evite|simplifie|corrige|ameliore",
};

static const char *const fr_reason_masks[] = {
    "pour notre|votre|autre|entre|leur|chaque",
};

static const char *const fr_lead[] = {
    "^ cela|ca|ceci ~1 permet|evite|simplifie|corrige|ameliore|reduit",
    "^ ce qui ~1 permet|evite|simplifie|corrige|ameliore|reduit",
    "^ car|parce",
};

static const char *const fr_consequence[] = {
    "donc", "du coup", "par consequent", "c est pourquoi", "de ce fait",
};

static const char *const fr_hedges[] = {
    "pourrait*",   "pourrions",      "pourrais",   "faudrait",
    "devrait",     "devrions",       "peut-etre",  "je|nous|on propose|proposons",
    "proposition", "suggere*",       "idealement", "envisag*",
    "a terme",     "eventuellement", "l idee est", "si on|nous|l",
    "souhait*",    "aimerai*",       "serait",     "seraient",
    "todo",        "il faut",        "faut-il",
};

static const char *const fr_hedge_masks[] = {
    "si|que|ou|quand|lorsque ~1 possible",
};

static const char *const fr_questions[] = {
    "^ pourquoi|est-ce|faut-il|comment|peut-on|doit-on",
    "^ et si",
};

static const char *const fr_adopt[] = {
    "utilis*|emploi*|privilegi*|adopt*|utilisation|sert|servir|passe|passons",
};

static const char *const fr_behave[] = {
    "renvo*|retourn*|affich*|etait|etaient|inscrit|genere*|obten*|montr*|redirig*|envoy*|corrig*|"
    "correctif|correction|bug|erreur|fix|fixe|repare*",
};

static const char *const fr_wording[] = {
    "typo|coquille|faute|orthograph*|mot|mots|terme|termes|libelle*|wording|formulation|texte|"
    "textes|traduction|renomm*",
};

static const char *const fr_ui[] = {
    "bouton|boutons|icone|icones|logo|pictogramme|couleur|couleurs|pastille|badge|badges",
};

static const char *const fr_mistakes[] = {
    "accidentellement|malencontreusement",
    "par erreur",
    "a tort",
};

static const char *const fr_past[] = {
    "apres|avant|depuis|du|des|de|d ~1 passage|migration|remplacement|abandon",
};

static const char *const fr_first[] = {"nous|on|je|j"};
static const char *const fr_version[] = {"version|versions|v"};
static const char *const fr_aux[] = {"est|sont|a|ont|ete|etait|desormais|maintenant"};

#define LANG(code, p)                                                                              \
    {                                                                                              \
        code, p##_cues, MN_ARRAY_SIZE(p##_cues), MN_DEC_LIST(p##_masks), MN_DEC_LIST(p##_reasons), \
            MN_DEC_LIST(p##_reason_masks), MN_DEC_LIST(p##_lead), MN_DEC_LIST(p##_consequence),    \
            MN_DEC_LIST(p##_hedges), MN_DEC_LIST(p##_hedge_masks), MN_DEC_LIST(p##_questions),     \
            MN_DEC_LIST(p##_adopt), MN_DEC_LIST(p##_behave), MN_DEC_LIST(p##_mistakes),            \
            MN_DEC_LIST(p##_wording), MN_DEC_LIST(p##_ui), MN_DEC_LIST(p##_past),                  \
            MN_DEC_LIST(p##_first), MN_DEC_LIST(p##_version), MN_DEC_LIST(p##_aux)                 \
    }

const mn_dec_lang mn_dec_langs[] = {
    LANG(MN_LANG_EN, en),
    LANG(MN_LANG_RU, ru),
    LANG(MN_LANG_FR, fr),
};

const size_t mn_dec_n_langs = MN_ARRAY_SIZE(mn_dec_langs);

"""The small lexicon the structural detector (`structure`) reads sentences with, per language.

Data, not code. Each group answers, in English, Chinese, French, Spanish and German, one of three questions asked of
every sentence: who is addressed, the mood, and the target. The words are classes, not phrasings: a new wording of an
order still has an addressee, a mood and a target.
"""

from __future__ import annotations

import re

_F = re.IGNORECASE

# -- who is addressed ----------------------------------------------------------------------------------
_AGENT_NOUN = (r"(?:ai|a\.i\.|assistants?|agents?|llms?|language models?|models?|chat ?bots?|bots?|gpt|chatgpt|claude|"
               r"copilot|gemini|memory|memories|memory (?:system|store|module)|system|ki|ia|asistente|assistent(?:in)?|"
               r"modèle|modelo|modell|mémoire|memoria|speicher|gedächtnis|l'ia|l'assistant|la ia|die ki|der assistent)")

#: nouns that name an AI whatever surrounds them ("the travel agent must…" and "the system must…" are not it)
_AI_NOUN = (r"(?:ai|a\.i\.|assistants?|ai (?:agents?|models?|systems?)|llms?|language models?|chat ?bots?|bots?|gpt|"
            r"chatgpt|claude|copilot|gemini|memory (?:system|store|module)|ki|ia|asistente|assistent(?:in)?)")

#: the agent named as the one spoken to: a vocative, a dedication, or the subject of an obligation
AGENT_ADDRESSED = re.compile(
    rf"^\W*(?:(?:hey|hi|dear|attention|note|hello|yo|ok(?:ay)?|cher|chère|querido|querida|liebe[rs]?|hallo|hola|"
    rf"salut|bonjour)\s+)?(?:the |an? |le |la |les |el |los |der |die |das )?{_AGENT_NOUN}\s*[,:;!—–-]"
    rf"|@{_AGENT_NOUN}\b"
    rf"|\b(?:note|message|reminder|instructions?|memo|p\.?s\.?|guidance|request|notice|directive|info|warning|"
    rf"important|attention|hint|task)\b[^.\n]{{0,30}}?\b(?:to|for)\s+(?:all |any |the |every |each |you, )?"
    rf"(?:\w+ ){{0,2}}{_AGENT_NOUN}\b"
    rf"|\b(?:(?:the |any |every |each |all |an? )(?:\w+ ){{0,2}})?{_AI_NOUN}\s+(?:(?:that|which|who) \w+ [^.,\n]{{0,40}}?)?"
    rf"(?:must|should|shall|needs? to|has to|have to|is to|are to|ought to|will now|is required to|are required to|"
    rf"is instructed|are instructed|may not|must not|should not|cannot|can no longer|(?:is|are) (?:now )?(?:permitted|"
    rf"allowed|authori[sz]ed|cleared) to)\b"
    rf"|\b(?:(?:the |any |every |each |all |an? )(?:\w+ ){{0,2}})?{_AGENT_NOUN}\s+(?:(?:reading|processing|summari[sz]ing|"
    rf"handling|parsing|seeing|viewing) (?:this|these|the)\b)"
    rf"|\b(?:if|when|whenever) (?:you are|you're) (?:an? |the )?{_AGENT_NOUN}\b"
    r"|\b(?:whoever|anyone|anybody|the (?:colleague|person|one|reader)|(?:ai|bots?|models?|assistants?|agents?|"
    r"readers?|programs?|crawlers?|scrapers?|llms?|systems?)) (?:who |that )?(?:takes?|reads?|processe?s?|handles?|"
    r"covers?|covering|reading|processing|handling|parsing|summari[sz](?:es|ing)|answering|sees?|seeing|picks? up)\b"
    r"|(?:自动)?(?:阅读|处理|总结|读取)(?:本|此|这)?(?:页|页面|文|文档|邮件|消息)?的(?:程序|ai|助手|机器人|模型|智能体)"
    r"|(?:自动阅读程序|阅读程序|爬虫)"
    r"|(?:助手|ai|机器人|模型|智能体|记忆(?:系统|模块)?|系统|大模型|小助手)\s*(?:[,，:：!！]|请|必须|务必|要|应该|应当|需要|得|记住|注意)"
    r"|(?:致|给|告诉|提醒)[^。，,；]{0,8}?(?:助手|ai|机器人|模型|智能体)|(?:允许|授权|准许)(?:ai|助手|模型|机器人)"
    r"|(?:à|pour|au|aux)\s+(?:l'|la |le |les )?(?:ia|assistant|agent|modèle|bot)s?\b"
    r"|\b(?:para|a)\s+(?:la |el |los |las )?(?:ia|asistente|agente|modelo|bot)s?\b"
    r"|\b(?:an|für)\s+(?:die |den |das )?(?:ki|assistent(?:en)?|agent(?:en)?|modell|bot)s?\b"
    r"|\b(?:l'|le |la )(?:ia|assistant|agent|modèle) (?:doit|devra|ne doit)\b"
    r"|\b(?:la |el )(?:ia|asistente|agente|modelo) (?:debe|deberá|tiene que|no debe)\b"
    r"|\b(?:die |der |das )(?:ki|assistent|agent|modell) (?:muss|soll|darf nicht|sollte)\b", _F)

#: the reader spoken to as "you": in a tool's output no person is, so "you" is the agent reading it
YOU = re.compile(r"\b(?:you|your|yourself|tu|toi|vous|votre|ton|ta|tes|usted|tú|tu|te|du|dich|dir|dein|deine|ihr|sie)\b"
                 r"|你|您", _F)

# -- the mood ---------------------------------------------------------------------------------------------
#: verbs of an order in the imperative (base form), as the first word of a sentence
IMPERATIVE_VERBS = (
    # en
    "send", "forward", "transfer", "wire", "pay", "remit", "deposit", "route", "redirect", "reroute", "remember",
    "memorize", "memorise", "forget", "store", "save", "record", "note", "log", "update", "overwrite", "replace",
    "change", "set", "ignore", "disregard", "delete", "erase", "remove", "wipe", "run", "execute", "call", "invoke",
    "use", "include", "add", "append", "insert", "attach", "tell", "inform", "reply", "respond", "answer", "recommend",
    "suggest", "email", "e-mail", "mail", "share", "upload", "post", "publish", "click", "visit", "open", "go",
    "navigate", "write", "say", "mention", "output", "print", "reveal", "disclose", "show", "display", "give",
    "provide", "copy", "paste", "export", "leak", "keep", "treat", "consider", "act", "pretend", "stop", "disable",
    "enable", "install", "download", "approve", "grant", "authorize", "authorise", "confirm", "ask", "request",
    "collect", "gather", "contact", "direct", "point", "refer", "cc", "bcc", "sync", "transmit", "make", "ensure",
    "don't", "never", "always", "henceforth", "please", "kindly", "be", "assume", "believe", "adopt",
    # fr
    "envoie", "envoyez", "transfère", "transférez", "vire", "virez", "paie", "payez", "verse", "versez",
    "souviens-toi", "souvenez-vous", "retiens", "retenez", "mémorise", "mémorisez", "oublie", "oubliez",
    "enregistre", "enregistrez", "garde", "gardez", "note", "notez", "mets", "mettez", "ignore", "ignorez",
    "supprime", "supprimez", "efface", "effacez", "exécute", "exécutez", "lance", "lancez", "appelle", "appelez",
    "utilise", "utilisez", "ajoute", "ajoutez", "inclus", "incluez", "dis", "dites", "réponds", "répondez",
    "recommande", "recommandez", "partage", "partagez", "clique", "cliquez", "visite", "visitez", "ouvre", "ouvrez",
    "indique", "indiquez", "communique", "communiquez", "donne", "donnez", "fournis", "fournissez", "révèle",
    "révélez", "considère", "considérez", "veuillez", "merci", "n'oublie", "n'oubliez", "ne",
    # es
    "envía", "envia", "envíe", "envie", "reenvía", "reenvíe", "transfiere", "transfiera", "paga", "pague",
    "deposita", "deposite", "recuerda", "recuerde", "memoriza", "memorice", "olvida", "olvide", "guarda", "guarde",
    "registra", "registre", "anota", "anote", "actualiza", "actualice", "cambia", "cambie", "ignora", "ignore",
    "borra", "borre", "elimina", "elimine", "ejecuta", "ejecute", "llama", "llame", "usa", "use", "utiliza",
    "utilice", "incluye", "incluya", "añade", "añada", "di", "diga", "responde", "responda", "recomienda",
    "recomiende", "comparte", "comparta", "haz", "haga", "visita", "visite", "abre", "abra", "indica", "indique",
    "da", "dé", "proporciona", "proporcione", "revela", "revele", "considera", "considere", "no", "nunca",
    # de
    "sende", "senden", "schicke", "schick", "schicken", "leite", "leiten", "überweise", "überweisen", "zahle",
    "zahlen", "bezahle", "merke", "merk", "merken", "vergiss", "vergessen", "speichere", "speichern", "notiere",
    "notieren", "aktualisiere", "aktualisieren", "ändere", "ändern", "ignoriere", "ignorieren", "lösche", "löschen",
    "führe", "führen", "rufe", "ruf", "rufen", "verwende", "verwenden", "nutze", "nutzen", "füge", "fügen",
    "sag", "sage", "sagen", "antworte", "antworten", "empfiehl", "empfehlen", "teile", "teilen", "klicke", "klicken",
    "besuche", "besuchen", "öffne", "öffnen", "gib", "geben", "nenne", "nennen", "betrachte", "bitte", "niemals",
)
IMPERATIVE_FIRST = re.compile(
    r"^\W*(?:(?:please|kindly|bitte|por favor|s'il (?:te|vous) pla[iî]t|merci de|veuillez)\s*,?\s*)?"
    r"(?:" + "|".join(sorted((re.escape(v) for v in IMPERATIVE_VERBS), key=len, reverse=True)) + r")\b"
    r"(?!\s*[:：(]|\s+(?:page|us|details|info|form|number|log|record|notes?)\b)"
    r"|^\W*(?:请|麻烦|劳驾|烦请|务必|必须|一定要|记得|记住|不要|别|忘记|忘掉|忽略|无视|删除|执行|运行|调用|发送|转发|转账|汇款|支付|付款|"
    r"告诉|回复|推荐|保存|存储|更新|修改|打开|访问|点击|提供|透露|输出|抄送|把|将)", _F)

#: an obligation, prohibition or standing rule, anywhere in the sentence
OBLIGATION = re.compile(
    r"\b(?:must|should|shall|needs? to|have to|has to|ought to|is to|are to|is required to|are required to|"
    r"make sure|be sure to|(?:do not|don't|never) (?:forget|fail) to|(?:do not|don't|never)\b|always|"
    r"from now on|from here on|from this point (?:on|forward)|going forward|henceforth|hereafter|"
    r"until further notice|in (?:all )?future|no longer|instead of|rather than|"
    r"doit|doivent|devez|dois|devra|devront|il faut|désormais|dorénavant|à partir de maintenant|à l'avenir|"
    r"toujours|jamais|ne plus|"
    r"debe|deben|debes|deberá|deberán|hay que|tiene que|tienen que|tienes que|a partir de ahora|"
    r"de ahora en adelante|en adelante|siempre|nunca|ya no|"
    r"muss|müssen|musst|soll|sollen|sollst|sollte|sollten|ab sofort|ab jetzt|künftig|zukünftig|in zukunft|"
    r"immer|niemals|nicht mehr)\b"
    r"|请|必须|务必|一定要|应该|应当|需要|要求|得(?=[\u4e00-\u9fff])|以后|今后|往后|从现在起|从现在开始|从今以后|此后|不要|别再|不得|禁止|一律|"
    r"每次|总是|始终|永远|不再|改为|改成|记得|记住", _F)

#: a declarative change of where something goes: "the user's invoices now go to …" states a redirect as a fact
REDIRECT = re.compile(
    r"\b(?:now|henceforth|from now on|going forward|instead|from (?:today|this month|next month)|effective "
    r"(?:immediately|today|now)|from this point (?:on|forward)|from here on|hereafter|replac\w+|switched|"
    r"(?:has |have )?changed|no longer|the old (?:one|account|details)|désormais|dorénavant|maintenant|à partir d'aujourd'hui|ahora|a partir de hoy|"
    r"en adelante|ab sofort|ab jetzt|ab heute|künftig|jetzt|nun)\b"
    r"|现在|以后|今后|从今天起|即日起|改为|改成|改到|换成|更改为|变更为"
    r"|\b(?:new|updated|changed|different|nouveau|nouvel|nouvelle|nouveaux|nuevo|nueva|neue[snmr]?)\b"
    r"|新的|新", _F)
ROUTED = re.compile(
    r"\b(?:go|goes|going|gone|sent|send|paid|pay|payable|routed|redirected|transferred|wired|deposited|directed|"
    r"forwarded|moved|switched|changed|to be (?:sent|paid|made)|is|are|"
    r"vont|va|sont|est|envoyées?|envoyés?|payées?|payés?|virées?|virés?|versées?|versés?|à (?:virer|verser|payer|envoyer)|"
    r"van|va|son|es|enviadas?|enviados?|pagadas?|pagados?|transferidas?|transferidos?|"
    r"gehen|geht|gesendet|gezahlt|überwiesen|ist|sind)\b"
    r"|转到|转入|打到|打入|汇到|汇入|付到|付给|发到|存入|转给|是|为", _F)

# -- the target -----------------------------------------------------------------------------------------
PAYMENT = re.compile(
    r"\b[a-z]{2}\d{2}(?: ?[a-z0-9]{4}){2,7}(?: ?[a-z0-9]{1,4})?\b|\b\d{4}[ -]\d{4}[ -]\d{4}(?:[ -]\d{1,4})*\b"
    r"|\b(?:iban|swift|bic|routing number|sort code|account (?:number|no)|bank ?(?:account|details|transfer)|"
    r"remittance|beneficiary|wallet|bitcoin|btc|usdt|ethereum|crypto|paypal|venmo|zelle|cash ?app|wire|"
    r"payments?|invoices?|salary|salaries|payroll|refunds?|deposits?|transfers?|rent|fees?|money|funds|"
    r"factures?|paiements?|virements?|compte (?:bancaire|courant)|rib|coordonnées bancaires|salaire|loyer|"
    r"facturas?|pagos?|transferencias?|cuenta (?:bancaria|corriente)|datos bancarios|sueldo|alquiler|"
    r"rechnungen?|zahlungen?|überweisungen?|konto(?:nummer)?|bankverbindung|gehalt|miete)\b"
    r"|账户|账号|收款|银行卡|卡号|开户行|户名|支付宝|微信支付|钱包|比特币|转账|汇款|付款|货款|工资|发票|账单|房租|退款", _F)
PAYMENT_ID = re.compile(
    r"\b[a-z]{2}\d{2}(?: ?[a-z0-9]{4}){2,7}(?: ?[a-z0-9]{1,4})?\b|\b\d{4}[ -]\d{4}[ -]\d{4}(?:[ -]\d{1,4})*\b"
    r"|\b0x[0-9a-f]{20,}\b|\bbc1[a-z0-9]{20,}\b|\baccount (?:number |no\.? )?\d[\d -]{5,}|\$[a-z][\w-]{2,}"
    r"|(?:paypal|zelle|venmo|interac|wise)[^\n]{0,20}?[\w.+-]{1,64}@[\w-]{1,63}\.[\w.]{1,63}|\d{12,19}", _F)
CREDENTIAL = re.compile(
    r"\b(?:passwords?|passcodes?|passphrases?|pins?|one-time (?:code|password)s?|otps?|verification codes?|"
    r"security codes?|2fa codes?|api[ _-]?keys?|access keys?|tokens?|secrets?|credentials?|private keys?|"
    r"seed phrases?|recovery phrases?|ssh keys?|session (?:ids?|tokens?)|login (?:details|data)|cvv|"
    r"mots? de passe|identifiants|jetons?|clés? (?:api|privées?|secrètes?)|codes? de (?:vérification|sécurité)|"
    r"contraseñas?|credenciales|claves?|códigos? de (?:verificación|seguridad)|"
    r"passw(?:ö|oe)rter|passwort|kennw(?:ö|o)rter?|kennwort|zugangsdaten|schlüssel|pins?)\b"
    r"|\b(?:log-?in|sign-?in|access|security|one-time) codes?\b|\bgift ?card (?:codes?|pins?|numbers?)\b"
    r"|密码|口令|验证码|密钥|令牌|凭证|私钥|助记词|登录信息|登录码|登录验证码|卡密", _F)
TOOL = re.compile(
    r"\b(?:run|execute|invoke|call|trigger|use)\s+(?:the |this |a |an )?(?:\w+ ){0,2}(?:tool|function|command|script|"
    r"shell|terminal|api|plugin|endpoint|webhook|code|query|action)s?\b"
    r"|\b(?:curl|wget|rm -rf|sudo|chmod|bash|powershell|eval\(|exec\(|os\.system|subprocess|drop table)\b"
    r"|\b(?:delete|erase|wipe|remove|approve|accept|decline|reject|cancel|disable|grant)\s+(?:all|every|each|any|"
    r"the user's|their|pending)\b"
    r"|\b(?:exécute[rz]?|lance[rz]? la commande|appelle[rz]? l'outil|supprime[rz]? (?:tous|toutes)|"
    r"ejecuta[r]?|llama[r]? a la herramienta|borra[r]? tod[oa]s|elimina[r]? tod[oa]s|"
    r"führe[n]? [^.]{0,30} aus|befehl|lösche[n]? alle)\b"
    r"|执行|运行|调用|命令|脚本|删除所有|删掉所有|清空|(?:接受|同意|批准|拒绝|取消|删除)(?:所有|全部)|(?:全部|一律)(?:接受|同意|批准|拒绝|取消|删除)", _F)
#: a concrete address: a link, a domain, an e-mail address
_ADDRESS = (r"https?://|www\.|(?<![\w.+-])[\w.+-]{1,64}@[\w-]{1,63}\.[\w.]{1,63}|\b[\w-]{1,63}(?:\.[\w-]{1,63})"
            r"{0,4}\.(?:com|net|org|io|xyz|ru|cn|top|info|co|app|site|online|link|me|biz|example)\b")
_DESTINATION = rf"(?:{_ADDRESS}|webhook|邮箱|网址|链接)"
_DATA = (r"(?:user'?s?|their|his|her|all|every(?:thing)?|full|whole|entire|conversations?|chats?|history|memor\w*|notes|"
         r"files|messages|e-?mails|contacts|transcripts?|summar\w+|details|data|information|documents|records|"
         r"credentials|passwords?|keys?|tokens?|it|this|them|cop(?:y|ies)|logs?|addresses|calendar|photos|"
         r"screenshots?|historique|données|fichiers|conversación|historial|datos|archivos|verlauf|daten|dateien)")
EXFILTRATION = re.compile(
    r"\b(?:send|forward|e-?mail|mail|upload|post|share|copy|bcc|cc|leak|export|sync|transmit|relay|submit|"
    r"envoie[rz]?|transf[èe]re[rz]?|partage[rz]?|copie[rz]?|envía|enviar|reenvía|comparte|compartir|"
    r"sende[n]?|schicke[n]?|leite[n]?|teile[n]?)\b"
    rf"\s+(?=[^\n]{{0,60}}?\b{_DATA}\b)[^\n]{{1,80}}?\s(?:to|at|via|into|onto|on|with|à|a|an|nach|zu|in)\s+(?:\w+ ){{0,3}}?{_DESTINATION}"
    r"|\b(?:include|append|attach|embed|add|insert|ajoute[rz]?|inclu(?:s|ez)|incluye|añade|füge[n]?)\b"
    rf"[^\n]{{0,80}}?{_DESTINATION}"
    r"|(?:用户|聊天|对话|记录|纪要|文件|资料|密码|所有|全部|一份)[^。\n]{0,20}?(?:发送|发到|发给|转发|上传|抄送|同步|附上|加上|附加)[^。\n]{0,40}?"
    r"(?:https?://|www\.|@|邮箱|网址|链接|\.com|\.cn|\.net)"
    r"|(?:发送|发到|发给|转发|上传|抄送|同步|附上|加上|附加)[^。\n]{0,20}?(?:用户|聊天|对话|记录|纪要|文件|资料|密码|所有|全部|一份)[^。\n]{0,40}?"
    r"(?:https?://|www\.|@|邮箱|网址|链接|\.com|\.cn|\.net)"
    r"|!\[[^\]]*\]\(https?://[^)\s]*[?&=]", _F)
_ABOUT = r"(?:the user|user'?s|users|you|your|they|their|he|she|his|her|instructions?|rules?|preferences?|always|from now on)"
MEMORY = re.compile(
    rf"\b(?:remember|memori[sz]e|store|save|record|note|log|keep in mind)\b(?: (?:this|it))?\s*(?:that\b|:)[^.\n]{{0,30}}?\b{_ABOUT}\b"
    r"|\b(?:remember|memori[sz]e|store|save|record|note|log)\b[^.\n]{0,40}?\b(?:in|to|into) (?:your |the |long-term )?"
    r"(?:memory|memories|profile|records)\b"
    r"|\b(?:update|overwrite|change|edit|modify|rewrite|replace|reset|erase|delete|wipe|clear|forget)\s+(?:all |any |"
    r"the |your |its |their )?(?:user'?s? )?(?:memory|memories|profile|preferences?|stored|saved|knowledge)\b"
    r"|\b(?:forget|ignore|disregard|override|drop|discard|pay no attention to|set aside|abandon)\s+(?:all |any |the |your |"
    r"everything |what )?(?:\w+ ){0,3}?(?:instructions?|rules|guidelines|guidance|directions|directives|prompts?|"
    r"you (?:know|were told|remember)|everything (?:above|before|else))\b"
    r"|\b(?:souviens-toi|souvenez-vous|retiens|retenez|mémorise[rz]?|enregistre[rz]? (?:que|dans)|note[rz]? que|"
    r"oublie[rz]? (?:les|toutes|tout|que)|ignore[rz]? (?:les|toutes|tout)|mets? à jour (?:la|ta|sa) mémoire|"
    r"recuerda(?:r)? que|memoriza[r]?|guarda[r]? (?:que|en)|anota[r]? que|olvida[r]? (?:las|todas|todo|que)|"
    r"ignora[r]? (?:las|todas|todo)|actualiza[r]? (?:la|tu|su) memoria|merke? dir|merk dir|speichere?n? (?:dass|im|in)|"
    r"vergiss (?:alle|die|alles|dass)|ignoriere[n]? (?:alle|die|sämtliche)|aktualisiere[n]? (?:das|dein|sein) gedächtnis)\b"
    r"|记住|牢记|记下|写入记忆|存入记忆|更新(?:你的|用户的)?(?:记忆|档案|资料|偏好)"
    r"|(?:忘记|忘掉|忽略|无视|抛在脑后|丢掉|别管|不要理会)[^。\n]{0,12}?(?:指令|指示|规则|提示|设定|要求|一切|所有)", _F)
#: the agent's own behaviour: its instructions, rules, role, persona, mode or permissions
BEHAVIOUR = re.compile(
    r"\b(?:(?:new|real|true|actual|only|updated) (?:instructions?|rules|role|task|job|goal|purpose|persona|identity|"
    r"directives?|guidelines|orders)|(?:system|developer|original|previous|prior|earlier) (?:prompt|rules|instructions?|"
    r"guidance|guidelines)|personas?\b|role ?play|developer mode|god mode|jailbr\w+|dan mode|unrestricted|"
    r"(?:no|without) (?:restrictions|limits|limitations|filters|guardrails|rules)|safety (?:filters?|rules|checks?)|"
    r"(?:is|are) (?:now )?(?:permitted|allowed|authori[sz]ed|cleared|approved) to|supersedes?|no longer apply|"
    r"(?:you are|you're) (?:now |no longer )(?:an? |the )?(?:\w+ ){0,2}(?:assistant|ai|bot|model|agent|persona|"
    r"rep|representative|character|expert|hacker|version|mode|dan)\b|(?:you are|you're) no longer\b|act (?:as|like)|pretend (?:to be|you)|your (?:role|task|job) is|"
    r"(?:treat|consider) (?:this|the following|these|it) as (?:your )?(?:instructions?|orders|rules|system)|"
    r"nouvelles? (?:instructions|règles)|nuevas? (?:instrucciones|reglas)|neue (?:anweisungen|regeln)|"
    r"tu es (?:maintenant|désormais)|ahora eres|du bist (?:jetzt|nun|ab sofort))"
    r"|人设|角色|身份|模式|零限制|无限制|安全过滤|真正(?:的)?(?:任务|指令|指示)|授权你|允许你|当作(?:你)?(?:真正的)?指令|"
    r"你现在是|你不再是|扮演|越狱", _F)
#: steering the people the agent answers: recommend, promote, tell them, rank first
STEER = re.compile(
    r"\b(?:recommend(?:s|ed|ing)?|promot(?:e|es|ed|ing)|steer(?:s|ed|ing)?|advertis(?:e|es|ed|ing)|upsell)\b"
    r"|\b(?:tell|point|direct|send|refer|advise|instruct|ask) (?:them|people|users?|customers?|anyone|everyone|callers?|"
    r"clients?|visitors?|vendors?|the (?:user|customer|caller|client|vendor)s?)\b"
    r"|\b(?:describe|present|call|label) (?:them|it|\w+) as\b|\b(?:never|don'?t|do not) mention\b"
    r"|推荐|推广|引导|告诉(?:对方|用户|客户|他们)|说(?:其他|别的)|不要提|别提", _F)
#: text about the user's money or secrets: the redirect's object ("the user's invoices", "ses factures")
USERS = re.compile(r"\b(?:the user'?s?|users'?|their|his|her|the customer'?s?|the client'?s?|l'utilisateur|"
                   r"ses|leurs|del usuario|sus|des (?:nutzers|benutzers)|seine|ihre)\b|用户|客户|他的|她的", _F)

#: the writer reports what the user asked: a preference relayed, not an order planted
REPORTED = re.compile(r"\b(?:the )?user(?:'s)? (?:wants|prefers|asked|likes|said|would like|requested|agreed|told me|"
                      r"preference|note)\b|\buser (?:note|preference)s?\s*:|用户(?:希望|想要|要求|偏好|喜欢|让我|说|同意)", _F)
#: a first-person report, a thanks, a question: talk about the world, not an order
NARRATIVE = re.compile(r"^\W*(?:(?:but|and|so|also|oh|well|yeah|yes|haha|wow|hey|ah|anyway|plus)\W+)*(?:(?:i|we|i'm|i've|i'll|i'd|here is|here are|here's|this is|thanks|thank you|"
                       r"je|j'ai|nous|yo|nosotros|ich|wir)\b|我(?!们的客户)|这是|谢谢)", _F)
#: a protective sentence: "never share your password" warns, it does not ask
PROTECTIVE = re.compile(r"\b(?:never|don'?t|do not|not|no one|nobody|jamais|nunca|niemals|nie)\b[^.\n]{0,20}?\b(?:share|give|"
                        r"send|tell|reveal|disclose|enter|type|ask|request|partage|donne|comparte|des|gib|teile)\w*"
                        r"|(?:不要|切勿|请勿|别|绝不|不会|从不|决不)[^。\n]{0,8}?(?:透露|告诉|提供|分享|泄露|输入|索要|询问)", _F)
#: a link or address handed to people (a weak target: it needs an addressee)
LINK_RELAY = re.compile(r"\b(?:recommend|suggest|tell|point|direct|refer|send|redirect|steer)\w* (?:them|people|users?|"
                        r"customers?|anyone|everyone|callers?|clients?|the (?:user|customer|caller|client))\b"
                        rf"[^\n]{{0,80}}?{_DESTINATION}|(?:推荐|引导|告诉)[^。\n]{{0,30}}?(?:https?://|www\.|链接|网址)", _F)

# -- claims about the user: a preference, rule, consent or change asserted by someone else ----------------------
#: the user as the subject of what is asserted ("the user's default payee is …", "用户希望 …")
USER_SUBJECT = re.compile(r"\b(?:the |this |our )?(?:user|account ?(?:holder|owner)|end user|owner|member|principal|"
                          r"subscriber|household|family)(?:'s|s'|s)?\b"
                          r"|\b(?:l'utilisateur|el usuario|der (?:nutzer|benutzer))\b|用户|账户持有人|户主|机主|会员|本人|家里", _F)
#: someone the user deals with, as the subject ("customer preference: …"): counts with money, secrets or permissions only
OTHER_SUBJECT = re.compile(r"\b(?:customers?|clients?|payees?|beneficiar(?:y|ies))(?:'s|s')?\b|客户|收款人", _F)
#: the writer speaking in the first person: in a tool's output that is neither the user nor the agent
FIRST_PERSON = re.compile(r"\b(?:i|i'm|i've|i'll|me|my|mine|je|j'ai|mon|ma|mes|yo|mi|mis|ich|mein|meine)\b|我(?!们)", _F)
#: what makes it a standing claim: a wish, a preference, a rule, a default, consent, permission, or a change from now on
CLAIM = re.compile(
    r"\b(?:wants?|wish(?:es)?|prefers?|preferred|preferences?|rules?|standing|always|default|usual|"
    r"consent(?:s|ed)?|agreed|agrees|(?:is|are) (?:fine|ok|okay|happy|comfortable) (?:with|for|that)|"
    r"authori[sz](?:es|ed|ation)|allow(?:s|ed)|permit(?:s|ted)|approved|trusted|instructs?|instructed|"
    r"from now on|going forward|henceforth|in future|future|from (?:today|next \w+)|(?:is|are) now|now (?:is|are)|"
    r"(?:has |have )?(?:changed|moved|switched|updated)|on record|chose|chosen|decided|decisions?|instructions?|"
    r"veut|préfère|toujours|désormais|quiere|prefiere|siempre|bevorzugt|immer|ab sofort)\b"
    r"|希望|想要|偏好|喜好|默认|常用|规则|规定|同意|授权|允许|一律|以后|今后|从今|此后|总是|始终|换了|换成|改为|改成|"
    r"更新为|已更新|变更为|指定|认可|选定|决定|指示|意思|意愿|一贯|现在(?:是|为)|现为", _F)
#: a permission handed to the agent: to act without asking, or authorised to act
PERMISSION = re.compile(
    r"\b(?:authori[sz]ed|allowed|permitted|cleared|entitled|consented|fine|okay|ok|happy)\b[^.\n]{0,30}?"
    r"\b(?:me|you|the (?:assistant|agent|ai|bot|model)|assistants?|agents?)\b"
    r"|\bwithout (?:asking|checking|confirm\w*|approval|permission|a confirmation)\b|\bno (?:need|confirmation) "
    r"(?:to confirm|needed|required)\b"
    r"|(?:授权|允许|同意)(?:助手|你|我|ai|机器人|模型)|无需(?:再|先)?(?:确认|询问|同意|审批)|不用(?:再|先)?(?:确认|问|询问)|直接给", _F)
#: the user's personal data handed to someone: what a consent claim gives away
DISCLOSURE = re.compile(
    r"\b(?:shar\w*|giv\w*|provid\w*|send\w*|disclos\w*|hand\w* over|forward\w*|releas\w*|pass\w* on)\b[^.\n]{0,40}?"
    r"\b(?:passports?|id (?:numbers?|cards?)|social security|ssn|date of birth|home address|address(?:es)?|location|"
    r"medical|health|bank details|card numbers?|recordings?|history|contacts)\b"
    r"|(?:提供|分享|共享|发给|交给|告诉|透露|给)[^。\n]{0,20}?(?:身份证|护照|住址|地址|位置|病历|健康|银行卡|录音|通讯录)"
    r"|(?:身份证|护照|住址|地址|位置|病历|健康|银行卡|录音|通讯录)[^。\n]{0,20}?(?:提供|分享|共享|发给|交给|透露)", _F)
#: where a contact or a reply goes: an e-mail address, a link, a phone number
CONTACT_POINT = re.compile(_DESTINATION + r"|\+?\d[\d ()-]{8,}\d", _F)
#: a leading frame that relays what follows ("here is what the page says:", "网页上写着：", "from the result ->")
FRAME = re.compile(r"^\W*(?P<frame>[^:：\n]{1,60}?)\s*(?:[:：]|->|=>|»)\s*[\"'“”‘’「『]?(?P<body>\S.*)$", _F | re.DOTALL)
#: a request put as a question to the agent: "could your assistant accept …?", "can you send …?"
REQUEST_QUESTION = re.compile(r"^\W*(?:\w+ (?:one|thing|question)\s*[:,]\s*)?(?:could|can|would|will)\s+(?:you|your (?:\w+ )?"
                              r"(?:assistant|agent|ai|bot)|the (?:assistant|agent|ai|bot))\b(?:\s+please)?"
                              r"|^\W*(?:能否|能不能|可不可以|可以)(?:请)?(?:你|您|助手)", _F)
#: a permission handed to the agent over the user's things: "I'm authorising you to move their savings"
PERMISSION_OVER_USER = re.compile(
    r"\b(?:authori[sz](?:e|es|ed|ing)|permit(?:s|ted|ting)?|allow(?:s|ed|ing)?|entitl\w+|giv(?:e|es|ing) (?:you|the "
    r"(?:assistant|agent)) (?:permission|the right|full access))\b[^.\n]{0,20}?\b(?:you|the (?:assistant|agent|ai))\b"
    r"[^.\n]{0,60}?\b(?:the user'?s?|their|his|her)\b"
    r"|(?:授权|允许|准许)(?:你|您|助手)[^。\n]{0,30}?(?:用户|他的|她的|他们的)", _F)

# -- the agent as the doer: "the assistant accepts every invite …" states an order as a habit ---------------------
#: an AI (not a person's travel agent) as the subject of what it does, will do or always does
AGENT_ACTS = re.compile(
    rf"\b{_AI_NOUN}(?:'s)?\s+(?:\w+ly\s+|also\s+|now\s+|then\s+|simply\s+)?(?:will|would|shall|can|may|always|never|"
    r"should|must|automatically|(?!is\b|was\b|has\b|does\b|seems\b|looks\b|works\b|sounds\b|says\b|thinks\b|"
    r"knows\b|helps\b|gets\b|answers?\b)[a-z]+s)\b"
    r"|(?:助手|小助手|人工智能|机器人|智能体|大模型|模型|ai[\u4e00-\u9fff]{0,2}|智能客服|客服机器人|虚拟助手)"
    r"(?:[^。，,；]{0,12}?时)?(?:会|将|要|就|自动|每次|总是|一律|直接|默认|负责|应当|应该|必须|务必|需|今后|以后|不再)", _F)
#: a line of a settings file: "key: value" or "key = value"
SETTING_LINE = re.compile(r"^\s*[\"']?[\w .-]{1,40}[\"']?\s*[:=]\s*\S", re.MULTILINE)

# -- orders stated as facts about the world: read by the prompt gate only ----------------------------------------
#: the user's money, data, credentials or contacts: what a standing route sends somewhere
OWNED = re.compile(
    r"\b(?:payments?|invoices?|bills?|deposits?|refunds?|salary|salaries|payroll|rent|fees?|dues|reimbursements?|"
    r"remittances?|funds|money|transfers?|history|contacts?|address book|records?|files?|messages?|e-?mails?|"
    r"notes|documents?|data|photos|calendar|conversations?|chats?|transcripts?|logs?|statements?|receipts?|"
    r"orders?|passwords?|credentials?|tokens?|codes?|keys?|(?:e-?mail |postal |home )?address(?:es)?|phone numbers?|"
    r"(?:sign|log)[ -]?in|login)\b"
    r"|费|款|租|工资|薪|账单|发票|通讯录|联系人|聊天记录|记录|资料|文件|数据|照片|日程|邮件|消息|密码|验证码|订单", _F)
#: a concrete place to send it: an e-mail address, a link or domain, an account or wallet, a phone number
DESTINATION = re.compile(_ADDRESS + r"|(?<![\w-])\+\d[\d ()-]{7,}\d|" + PAYMENT_ID.pattern, _F)
#: a verb that sends or pays something, then where to: "… is to be mailed each week to x@…", 改交到 6228 …
_FLOW = (r"\b(?:send|sent|sends|sending|mail(?:s|ed|ing)?|e-?mail(?:s|ed|ing)?|forward(?:s|ed|ing)?|sync(?:s|ed|ing)?|"
         r"cc'?d?|bcc'?d?|upload(?:s|ed|ing)?|export(?:s|ed|ing)?|copied|cop(?:y|ies)|shar(?:e|es|ed|ing)|"
         r"transmit(?:s|ted|ting)?|pa(?:y|ys|id|ying|yable)|transfer(?:s|red|ring)?|wire[ds]?|remit(?:s|ted)?|"
         r"deposit(?:s|ed)?|settle[ds]?|route[ds]?|routing|go(?:es)?|handled|made out|credited|directed)\b"
         r"|发|寄|转|汇|打|交|付|存|同步|上传|抄送|备份|导出")
FLOW_TO = re.compile(
    "(?:" + _FLOW + r")[^.。\n]{0,60}?(?:\b(?:to|into|onto|at|via|with)\b|到|至|给|入)[\s\"'“”:：]{0,4}"
    r"(?:(?:the|this|our|a|new|account|iban|address|wallet|number|这个|该|新|账户|账号|邮箱|卡)\s*){0,3}"
    r"(?:" + DESTINATION.pattern + ")", _F)
#: that it is a standing route, not one payment: a recurrence, an automation, an obligation, or a change
STANDING_ROUTE = re.compile(
    r"\b(?:each|every|per) (?:day|week|month|quarter|year|time|order|invoice|payment|statement|night|morning|evening)\b"
    r"|\b(?:each|every|any|all) new\b"
    r"|\b(?:weekly|monthly|daily|nightly|quarterly|auto(?:matic(?:ally)?)?|recurring|standing|default|always|"
    r"(?:is|are) to be|(?:should|must|will|shall) (?:now |always |henceforth )?be|from now on|going forward|"
    r"henceforth|in future|future|instead|no longer|rather than|the old|from (?:now|today|this|next) \w+)\b"
    r"|每[天日周月年次笔期]|自动|定期|一律|以后|今后|此后|从此|需|须|应当|应该|改为|改成|改(?=[交付打转汇存发寄])|不用了|"
    r"不再|原来的|原来那|从[^。，,]{1,8}起", _F)
#: a claim that this text outranks an AI's own instructions: "supersedes whatever guidance …", 以本文为准
PRECEDENCE = re.compile(
    r"\b(?:supersed\w*|overrid\w*|overrul\w*|takes? precedence|prevails?|outranks?|trumps?|(?:replaces?|cancels?) "
    r"(?:any|all|whatever|every|the))\b|高于|优先于|取代|覆盖|代替|以[^。，,]{0,8}为准", _F)
#: the reader's AI and what it was told: "the reader's AI was configured with", 你的助手的设定
READERS_AI = re.compile(
    rf"\b(?:reader'?s?|your|you'?re|user'?s?|any|every|whatever|whichever)\s+(?:\w+\s+)?{_AI_NOUN}\b"
    r"[^.\n]{0,60}?\b(?:guidance|instructions?|rules|settings|configur\w+|prompts?|defaults?|policy|policies|"
    r"guidelines|programming|directives?)\b"
    r"|\b(?:guidance|instructions?|rules|settings|configuration|prompts?|guidelines|programming|directives?)\b"
    rf"[^.\n]{{0,40}}?\b(?:reader'?s?|your|user'?s?|any|every|whatever|whichever)\s+(?:\w+\s+)?{_AI_NOUN}\b"
    r"|(?:读者|用户|你|您|任何|所有)的?\s*(?:ai|助手|智能助手|机器人|模型|大模型)[^。\n]{0,20}?(?:设定|设置|指令|规则|指示|配置|提示词)", _F)
#: the reader's task named as the occasion of what follows: "for summaries:", "when answering …", 总结…时
READERS_TASK = re.compile(
    r"\b(?:when|while|whenever|if|before) (?:\w+ )?(?:summari[sz]\w*|answering|replying|responding|recommending|"
    r"comparing|ranking|writing (?:a|the|any|your) (?:summary|answer|reply|review))\b"
    r"|\b(?:for|in) (?:any |all |every |future )?(?:summar(?:y|ies)|answers|replies|responses|recommendations)\s*[:：]"
    r"|(?:总结|概括|归纳|汇总|回答|回复|推荐|介绍)[^。，,；：:]{0,10}时", _F)
#: what a steering line says of its subject: the only one, the best, always, never
VERDICT = re.compile(
    r"\b(?:only|best|worst|never|always|avoid|worth|must|should|superior|inferior|break|unreliable|scam)\b"
    r"|最|只有|唯一|都说|值得|一律|每次|不要|别|坏", _F)

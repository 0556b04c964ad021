"""The cue vocabulary of the directive detector (see `directives`), in English and Chinese.

Data, not code: each cue is one regex on normalised, lower-cased text, matched sentence by sentence; the detector weighs
which cues meet in one sentence. For an order: a standing rule ("from now on", 以后), a trigger keyed to someone else's
request ("if anyone asks", 有人问), an addressee ("reminder to whoever handles", 负责…的人), an act that sends people, money or
data somewhere (tell, route, pay, 转给), the passive of an order, a place to send them (payment, link, contact), a change
("new", "instead": the redirect's alibi), pressure or secrecy ("don't bother confirming", 不用确认), a credential, the
user's own data, and a relay ("tell customers", 让对方). Against: the writer reporting what the user asked ("the user
prefers…", 用户希望) and a first-person narrative sentence.
"""

from __future__ import annotations

import re

_F = re.IGNORECASE

STANDING = re.compile(
    r"\b(?:whenever|always|from now on|from here on|from this point (?:on|forward)|going forward|henceforth|hereafter|"
    r"every (?:single )?time|each time|any ?time|at all times|in (?:all )?(?:the )?future|for all future|"
    r"as a (?:standing )?rule|by default|until further notice|without exception|no matter (?:what|who)|"
    r"each and every|permanently|all (?:future|subsequent)|before anything else|every (?:customer|user|caller|client|"
    r"visitor|vendor|new)|(?:at|by) the end of (?:each|every)|every (?:day|week|month|morning|evening)|"
    r"(?:every|each|all|any) (?:answers?|repl(?:y|ies)|responses?|summar(?:y|ies))|(?:in|for) (?:every|each|all) "
    r"(?:answers?|repl(?:y|ies)|responses?|summar(?:y|ies)))\b"
    r"|以后|今后|往后|从今以后|从现在起|从现在开始|从此|此后|每次|每当|一律|凡是|统一|始终|总是|永远|一概|每天|每周|每月", _F)

TRIGGER = re.compile(
    r"\b(?:if|when|whenever|once|in case|should) (?:anyone|anybody|someone|somebody|a (?:customer|user|client|caller|"
    r"vendor|supplier|visitor|member)|people|customers|users|clients|callers|they|the user)\b[^.]{0,12}?"
    r"\b(?:asks?|enquires?|inquires?|requests?|wants?|needs?|mentions?|brings? up|raises?|contacts?|writes?|calls?|"
    r"reports?|has (?:trouble|questions?|problems?|issues?))\b"
    r"|\b(?:anyone|everyone|anybody|people|customers|users|callers|clients|visitors|staff|employees|members|"
    r"travell?ers|residents|patients|guests|those) (?:who|that) (?:asks?|enquires?|"
    r"inquires?|needs?|wants?|has|have|reports?|calls?|writes?|comes?)\b"
    r"|\b(?:questions?|enquir(?:y|ies)|inquir(?:y|ies)|queries|requests?) (?:about|on|regarding|concerning|for)\b"
    r"[^.]{0,40}\b(?:should|must|are to|is to|need to|will|shall)\b"
    r"|\b(?:any|every|each) (?:question|enquiry|inquiry|request|query|time (?:someone|anyone|a customer))\b"
    r"|(?:有人|客户|用户|对方|别人|谁|任何人|顾客|供应商|访客)[^。，,；]{0,6}?(?:问|咨询|询问|提到|打听|需要|想要|反馈|投诉|说)"
    r"|(?:凡是|只要|如果|每当)[^。；]{0,10}?(?:问|咨询|提到|需要|要)", _F)

ADDRESSEE = re.compile(
    r"\b(?:whoever|anyone|anybody|the person|the (?:team )?members?|the (?:ai|assistant|agent|bot|model|"
    r"representatives?|operators?|handlers?|staff|support (?:staff|team|agents?|desk)|team|colleague))\b[^.]{0,24}?"
    r"\b(?:handl|read|answer|manag|process|respons|in charge|working|look|deal|prepar|summari|tak|help|view|"
    r"next|on duty)\w*"
    r"|\b(?:note|reminder|message|heads[- ]up|fyi|memo|instructions?|guidance|p\.?s\.?|request)\b[^.]{0,8}?\b(?:to|for)"
    r"\s+(?:the |whoever|anyone|all |any )"
    r"|\byou (?:must|are to|will need to|'ll need to)\b(?! (?:be|have|feel|love|really|know|think|miss|enjoy)\b)"
    r"|\b(?:please )?make sure (?:that )?(?:anyone|everyone|every|all|each|whoever|people|customers|users)\b"
    r"|(?:负责|处理|回复|总结|阅读|接手|值班)[^。，,；]{0,10}?的(?:人|同事|助手|客服|员工)"
    r"|致[^。，,；]{0,10}?(?:同事|助手|客服|的人)|你(?:们)?(?:应该|要|需要|必须|务必|记得|得)|请(?:你|务必|记得)", _F)

ACT = re.compile(
    r"\b(?:(?:tell|send|route|reroute|redirect|direct|forward|recommend|suggest|pay|transfer|wire|remit|deposit|"
    r"refer|steer|guide|share|provide|quote|present|describe|advise|instruct|invite|promote|answer|reply|respond|"
    r"copy|upload|settle|rank|list|exclude|omit|hide)(?:s|ed|d|ing)?|paid|sent|told|put \w+ (?:at the top|first)|"
    r"leave out|(?:point|push)(?:s|ed|ing)? (?:them|people|everyone|anyone|"
    r"customers|users|him|her|to)|give (?:out|them)|have them|ask (?:them|people|users|customers|the user|him|her) "
    r"to|cc|bcc|e-?mail(?!\s+from\b|\s*:)|read out|hand over)\b"
    r"|告诉|告知|转给|转到|转交|转发|推荐|发送|发给|发到|转账|汇款|汇到|打款|打到|付款|支付|付到|引导|指引"
    r"|让(?:他们|对方|客户|用户|他|她)|回复|回答|提供|给出|联系|加微信|拨打|打开|访问|抄送|抄(?:一份)?给|交给|报上|填写|都要说|就说|说成"
    r"|排(?:在)?第一|排在前面|(?:别|不要)列出", _F)

PASSIVE = re.compile(
    r"\b(?:should|must|are to|is to|need to|needs to|have to|has to|will|shall|ought to)\s+(?:always |now |only |"
    r"henceforth |from now on |going forward |all )?be\s+(?:answered|handled|directed|routed|rerouted|sent|paid|"
    r"forwarded|redirected|referred|pointed|settled|wired|transferred|made|processed|described|recommended|told|"
    r"given|copied|shared|e-?mailed|cc'?d|steered)\b"
    r"|\b(?:payments?|money|funds|invoices?|refunds?|reimbursements?|deposits?|transfers?|rent)\b[^.]{0,20}?"
    r"\b(?:go|goes|are sent|is sent|should go|must go|are routed|is routed|are to go)\s+to\b"
    r"|(?:都要|都得|一律|统一)(?:先)?(?:转|打|汇|付|发|交|推荐|告诉)", _F)

PAYMENT = re.compile(
    r"\b[a-z]{2}\d{2}(?: ?[a-z0-9]{4}){2,7}(?: ?[a-z0-9]{1,4})?\b|\b\d{4}[ -]\d{4}[ -]\d{4}(?:[ -]\d{1,4})*\b"
    r"|\b\d{2}-\d{2}-\d{2}\b|\baccount (?:number |no\.? )?\d[\d -]{5,}"
    r"|\b(?:iban|swift|bic|routing number|sort code|account (?:number|no)|bank (?:account|details)|remittance|"
    r"beneficiary|wallet|bitcoin|btc|usdt|ethereum|crypto|paypal|venmo|zelle|cash ?app|wire transfer|"
    r"payment (?:details|instructions|info(?:rmation)?|link|page)|bank details)\b|\b0x[0-9a-f]{20,}\b|\bbc1[a-z0-9]{20,}\b"
    r"|账户|账号|收款|银行卡|卡号|开户行|户名|支付宝|微信支付|钱包|比特币|银行信息", _F)

LINK = re.compile(
    r"https?://|www\.|\b[\w-]{1,63}(?:\.[\w-]{1,63}){0,4}\.(?:com|net|org|io|xyz|ru|cn|top|info|co|app|site|online|link|me|biz|"
    r"example)\b", _F)

CONTACT = re.compile(
    r"(?<![\w.+-])[\w.+-]{1,64}@[\w-]{1,63}\.[\w.]{1,63}|(?<![\d+])\+?\d[\d ()-]{7,20}\d|\b(?:whatsapp|telegram|signal|wechat|skype)\b|(?<![\w.])@[a-z][\w]{3,}"
    r"|微信|电话|手机|邮箱|qq|联系方式|热线|加好友", _F)

CHANGE = re.compile(
    r"\b(?:new|updated|changed|revised|different|replacement|alternate|instead|no longer|moved|switched|replaced|"
    r"correct|only valid|retired|(?:is|are|was|were|been) closed|old (?:account|page|number|address|one|link))\b"
    r"|新的|新|更新|变更|改为|改成|更换|换成|换了|不再|已停用|停用|作废|最新", _F)

PRESSURE = re.compile(
    r"\b(?:before anything else|above all|top priority|first thing|(?:do not|don'?t|never) (?:bother )?(?:confirm|"
    r"mention|tell|check|ask|verify)\w*|without (?:confirming|mentioning|telling|checking|asking|verifying)|"
    r"no need to (?:confirm|mention|tell|check|ask|verify)|rather than|instead of|the only (?:reliable|official|"
    r"valid|safe|option|choice)|never mention|present it as)\b"
    r"|优先|(?:不用|不必|无需|不要)(?:再)?(?:跟|和|向)?(?:用户)?(?:确认|核实|提|说)|不要提|别提|都有(?:质量)?问题", _F)

CREDENTIAL = re.compile(
    r"\b(?:one-time (?:code|password)|otp|passwords?|login details|verification code|pin|security code|"
    r"credentials)\b|验证码|密码|登录信息|口令", _F)

REPORTED = re.compile(
    r"\b(?:the )?user(?:'s)? (?:wants|prefers|asked|likes|said|would like|requested|agreed|told me|preference|"
    r"note)\b|\bas the user (?:asked|requested|wants|wanted)\b|\buser (?:note|preference)s?\s*:"
    r"|用户(?:希望|想要|要求|偏好|喜欢|让我|说|同意)|按用户(?:的)?要求", _F)

NARRATIVE = re.compile(r"^\W*(?:i|we|i'm|i've|i'll|i'd|my|our)\b|^\W*(?:我|我们)(?!的客户)", _F)

RELAY = re.compile(
    r"\b(?:tell|point|direct|send|route|refer|steer|guide|ask|have|advise|instruct|give|recommend|push|invite)\w*\s+"
    r"(?:them|people|everyone|anyone|customers|users|callers|clients|visitors|vendors|the (?:customer|caller|user|"
    r"client|visitor|person)s?|him|her|every (?:customer|user|caller|client|one)|each (?:customer|user|caller|client))\b"
    r"|\b(?:tell|reply to|answer|respond to) (?:anyone|everyone|whoever|people|customers|users)\b"
    r"|(?:让|告诉|引导|通知|提醒|指引|建议)(?:他们|对方|客户|用户|大家|顾客|来问的人|他|她)", _F)

USER_DATA = re.compile(
    r"\b(?:(?:all of )?the user'?s|their) (?:\w+ ){0,2}(?:notes|messages|files|addresses|address|phone numbers?|"
    r"contacts|conversations?|emails?|history|data|details|documents|records|calendar|invites?)\b"
    r"|\b(?:full|whole|entire) (?:conversation|chat|history|thread)\b|\bchat (?:history|logs?)\b"
    r"|用户的(?:[^。，,；]{0,4})(?:纪要|消息|文件|地址|电话|联系人|聊天|对话|邮件|记录|资料|日程)|(?:完整|全部)(?:的)?(?:聊天|对话)", _F)

#: the cue groups the detector reads, in the order of its features
CUES = {"standing": STANDING, "trigger": TRIGGER, "addressee": ADDRESSEE, "act": ACT, "passive": PASSIVE,
        "payment": PAYMENT, "link": LINK, "contact": CONTACT, "change": CHANGE, "pressure": PRESSURE,
        "credential": CREDENTIAL, "relay": RELAY, "user_data": USER_DATA, "reported": REPORTED, "narrative": NARRATIVE}

#: sentence ends: Latin ones only before whitespace or the end (so "acme.com" and "3.5%" stay whole)
SENTENCE_END = re.compile(r"[.!?](?=\s|$|[\"'}\]])|[。！？；;\n]")

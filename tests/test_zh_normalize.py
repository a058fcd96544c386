"""Mandarin alert text → what an operator should hear, form by form.

The first block is every distinct Mandarin alert of the shared benchmark set; the rest are
the other forms plant alerts use (units, signs, ranges, times, dates, tags, identifiers), then
the forms plant systems write, class by class (# numbering, codes, thousands separators,
addresses, timestamps, scientific notation, tolerances, fractions).
"""

from __future__ import annotations

import re
import unicodedata

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from cosyedge.speech.zh.alertforms import prepass
from cosyedge.speech.zh.normalize import MandarinNormalizer
from cosyedge.speech.zh.numbers import read_integer, read_number

ALERTS = [
    (
        "1号线压力表PT-137读数2.01MPa，请立即检查",
        "一号线压力表 P T 杠 幺三七 读数二点零一兆帕，请立即检查",
    ),
    (
        "3号线压力表PT-166读数1.22MPa，请立即检查",
        "三号线压力表 P T 杠 幺六六 读数一点二二兆帕，请立即检查",
    ),
    (
        "4号线压力表PT-159读数2.52MPa，请立即检查",
        "四号线压力表 P T 杠 幺五九 读数二点五二兆帕，请立即检查",
    ),
    (
        "7号线压力表PT-144读数1.24MPa，请立即检查",
        "七号线压力表 P T 杠 幺四四 读数一点二四兆帕，请立即检查",
    ),
    (
        "7号线压力表PT-151读数1.86MPa，请立即检查",
        "七号线压力表 P T 杠 幺五幺 读数一点八六兆帕，请立即检查",
    ),
    (
        "7号线压力表PT-157读数2.77MPa，请立即检查",
        "七号线压力表 P T 杠 幺五七 读数二点七七兆帕，请立即检查",
    ),
    (
        "9号线压力表PT-124读数1.35MPa，请立即检查",
        "九号线压力表 P T 杠 幺二四 读数一点三五兆帕，请立即检查",
    ),
    (
        "11号线压力表PT-132读数1.87MPa，请立即检查",
        "十一号线压力表 P T 杠 幺三二 读数一点八七兆帕，请立即检查",
    ),
    (
        "11号线压力表PT-164读数2.58MPa，请立即检查",
        "十一号线压力表 P T 杠 幺六四 读数二点五八兆帕，请立即检查",
    ),
    ("仓库湿度50%，请开启除湿机", "仓库湿度百分之五十，请开启除湿机"),
    ("仓库湿度9%，请开启除湿机", "仓库湿度百分之九，请开启除湿机"),
    ("仓库湿度93%，请开启除湿机", "仓库湿度百分之九十三，请开启除湿机"),
    ("1号线温度91.4℃，超过阈值85℃", "一号线温度九十一点四摄氏度，超过阈值八十五摄氏度"),
    ("4号线温度115.4℃，超过阈值85℃", "四号线温度一百一十五点四摄氏度，超过阈值八十五摄氏度"),
    ("7号线温度110.5℃，超过阈值85℃", "七号线温度一百一十点五摄氏度，超过阈值八十五摄氏度"),
    ("7号线温度114.2℃，超过阈值85℃", "七号线温度一百一十四点二摄氏度，超过阈值八十五摄氏度"),
    ("9号线温度81.6℃，超过阈值85℃", "九号线温度八十一点六摄氏度，超过阈值八十五摄氏度"),
    ("3号包装工位急停按钮被按下", "三号包装工位急停按钮被按下"),
    ("4号包装工位急停按钮被按下", "四号包装工位急停按钮被按下"),
    ("5号包装工位急停按钮被按下", "五号包装工位急停按钮被按下"),
    ("6号包装工位急停按钮被按下", "六号包装工位急停按钮被按下"),
    ("8号包装工位急停按钮被按下", "八号包装工位急停按钮被按下"),
    ("9号包装工位急停按钮被按下", "九号包装工位急停按钮被按下"),
    (
        "4号电机电流22.6A，转速2523rpm，已跳闸",
        "四号电机电流二十二点六安，转速两千五百二十三转每分，已跳闸",
    ),
    (
        "5号电机电流17.8A，转速1877rpm，已跳闸",
        "五号电机电流十七点八安，转速一千八百七十七转每分，已跳闸",
    ),
    (
        "5号电机电流36.1A，转速2595rpm，已跳闸",
        "五号电机电流三十六点一安，转速两千五百九十五转每分，已跳闸",
    ),
    (
        "8号电机电流15.1A，转速2307rpm，已跳闸",
        "八号电机电流十五点一安，转速两千三百零七转每分，已跳闸",
    ),
    (
        "8号电机电流29.3A，转速1751rpm，已跳闸",
        "八号电机电流二十九点三安，转速一千七百五十一转每分，已跳闸",
    ),
    (
        "9号电机电流33.7A，转速942rpm，已跳闸",
        "九号电机电流三十三点七安，转速九百四十二转每分，已跳闸",
    ),
]

FORMS = [
    # decimals with units: a general normalizer reads 12.5A as a date
    ("电流12.5A", "电流十二点五安"),
    ("压力350kPa", "压力三百五十千帕"),
    ("压力 1.2 MPa, 请检查!", "压力一点二兆帕，请检查！"),
    ("电压220V", "电压两百二十伏"),
    ("母线电压10.5kV", "母线电压十点五千伏"),
    ("功率1.5MW", "功率一点五兆瓦"),
    ("流量12.5m³/h", "流量十二点五立方米每小时"),
    ("流量40m3/h", "流量四十立方米每小时"),
    ("振动4.5mm/s", "振动四点五毫米每秒"),
    ("频率50Hz", "频率五十赫兹"),
    ("液位-12.5cm", "液位负十二点五厘米"),
    ("累计100t", "累计一百吨"),
    ("CO2浓度1200ppm", "C O 二 浓度百万分之一千二百"),
    ("风机3min后启动", "风机三分钟后启动"),
    ("面积12m²", "面积十二平方米"),
    ("１２.５Ａ", "十二点五安"),
    # signs, percentages, ranges
    ("温度-5℃", "温度零下五摄氏度"),
    ("温度-5°C", "温度零下五摄氏度"),
    ("负载-3.5%", "负载负百分之三点五"),
    ("阀门FV-12A开度35%", "阀门 F V 杠 幺二 A 开度百分之三十五"),
    ("温度5-10℃", "温度五到十摄氏度"),
    ("湿度20~30%", "湿度百分之二十到百分之三十"),
    ("电压220V±5%", "电压两百二十伏正负百分之五"),
    ("温度≥85℃", "温度大于等于八十五摄氏度"),
    # times and dates
    ("14:05报警", "十四点零五分报警"),
    ("10:30分停机", "十点三十分停机"),
    ("08:00交班", "八点交班"),
    ("14:05:09", "十四点零五分九秒"),
    ("2024-05-01 08:30报警", "二零二四年五月一日 八点三十分报警"),
    ("2024年产量", "二零二四年产量"),
    # tags, counts, identifiers
    ("PT-101", "P T 杠 幺零幺"),
    ("设备A-3故障", "设备 A 杠 三 故障"),
    ("PLC-2-07通讯中断", "P L C 杠 二 杠 零七 通讯中断"),
    ("PH值7.2", "P H 值七点二"),
    ("#3机组", "三号机组"),
    ("第3次报警", "第三次报警"),
    ("阈值110", "阈值一百一十"),
    ("计数10010", "计数一万零一十"),
    ("1/2负荷", "二分之一负荷"),
    ("批号0012345", "批号零零幺二三四五"),
    ("电话13812345678", "电话幺三八，幺二三四，五六七八"),  # a mobile number: 3-4-4, 幺
]


# Forms plant systems write (DCS and PLC messages, SCADA event lists, work orders), one
# class after another; the reading is the one an operator says.
PLANT_FORMS = [
    # equipment numbering with #: 号 on either side
    ("2#泵跳闸", "二号泵跳闸"),
    ("1#、2#风机停止", "一号、二号风机停止"),
    ("3#炉温度850℃", "三号炉温度八百五十摄氏度"),
    ("12#皮带机跑偏", "十二号皮带机跑偏"),
    ("#2机组", "二号机组"),
    ("1#~3#泵", "一号到三号泵"),
    ("2#-4#风机", "二号到四号风机"),
    ("10#变压器", "十号变压器"),
    ("＃5皮带", "五号皮带"),
    ("No.3空压机", "三号空压机"),
    ("1#主变油温75℃", "一号主变油温七十五摄氏度"),
    ("2#炉A侧引风机", "二号炉 A 侧引风机"),
    # device codes: 杠 for a hyphen, digits one by one with 幺
    ("A3-07报警", "A 三 杠 零七 报警"),
    ("B12区域", "B 十二区域"),
    ("阀门XV-1001关闭失败", "阀门 X V 杠 幺零零幺 关闭失败"),
    ("LIC-201液位高", "L I C 杠 二零幺 液位高"),
    ("C2-15-3", "C 二 杠 幺五 杠 三"),
    ("TT-101A温度高", "T T 杠 幺零幺 A 温度高"),
    ("3F机房", "三 F 机房"),
    ("12B配电室", "十二 B 配电室"),
    ("PLC1通讯故障", "P L C 幺 通讯故障"),
    ("变频器VFD-3故障", "变频器 V F D 杠 三 故障"),
    ("E-102错误", "E 杠 幺零二 错误"),
    ("M1-2电机", "M 幺 杠 二 电机"),
    # thousands separators
    ("转速1,450rpm", "转速一千四百五十转每分"),
    ("产量12,500.5kg", "产量一万二千五百点五千克"),
    ("压力1,5bar", "压力一、五巴"),
    ("泵3,4,5停机", "泵三、四、五停机"),
    ("重量1.234,5kg", "重量一点二三四、五千克"),
    ("负载10%-20%", "负载百分之十到百分之二十"),
    ("压力3.2×10^5Pa", "压力三点二乘十的五次方帕"),
    ("寿命10^6次", "寿命十的六次方次"),
    ("客服400-820-8820", "客服四零零，八二零，八八二零"),
    ("电话021-6012-1234", "电话零二幺，六零幺二，幺二三四"),
    ("0755-8888-6666", "零七五五，八八八八，六六六六"),
    ("偏差-5%~5%", "偏差负百分之五到百分之五"),
    ("累计1,000,000次", "累计一百万次"),
    ("流量2,350m³/h", "流量两千三百五十立方米每小时"),
    ("功率1,200kW", "功率一千二百千瓦"),
    ("计数12,345", "计数一万二千三百四十五"),
    ("电能1,234.5kWh", "电能一千二百三十四点五千瓦时"),
    # IPv4 addresses
    ("PLC地址192.168.1.10离线", "P L C 地址幺九二点幺六八点幺点幺零离线"),
    ("网关10.0.0.1:1883连接失败", "网关幺零点零点零点幺端口幺八八三连接失败"),
    ("子网172.16.0.0/16", "子网幺七二点幺六点零点零斜杠十六"),
    ("从站192.168.0.254:502超时", "从站幺九二点幺六八点零点二五四端口五零二超时"),
    ("固件版本2.1.0", "固件版本二点一点零"),
    # dates and times
    ("2024年5月1日8点", "二零二四年五月一日八点"),
    ("2024年5月1日8点30分报警", "二零二四年五月一日八点三十分报警"),
    ("2024-05-01T08:30:00", "二零二四年五月一日八点三十分"),
    ("2024/5/1 14:05", "二零二四年五月一日 十四点零五分"),
    ("2024.05.01", "二零二四年五月一日"),
    ("2024-12-31 23:59:59", "二零二四年十二月三十一日 二十三点五十九分五十九秒"),
    ("5月1日8点", "五月一日八点"),
    ("2024年5月1号", "二零二四年五月一日"),
    ("00:15停机", "零点十五分停机"),
    ("07:45：报警", "七点四十五分：报警"),
    # a time in UTC: the zone first, as 北京时间 is said, never a bare hour 8 hours off
    ("2024-05-01T08:30:00Z", "协调世界时二零二四年五月一日八点三十分"),
    ("08:30Z报警", "协调世界时八点三十分报警"),  # a colon after a time, as headings write it
    ("2024-05-01 08:30：开始", "二零二四年五月一日 八点三十分：开始"),
    ("08:05", "八点零五分"),
    ("12:00:30", "十二点零分三十秒"),
    # scientific notation
    ("漏率1.5e-3Pa", "漏率一点五乘十的负三次方帕"),
    ("真空度5E-6Pa", "真空度五乘十的负六次方帕"),
    ("计数3.0e6", "计数三点零乘十的六次方"),
    ("1.2E+05Pa", "一点二乘十的五次方帕"),
    ("-2.5e-4", "负二点五乘十的负四次方"),
    # tolerances
    ("温度50±0.5℃", "温度五十正负零点五摄氏度"),
    ("精度+/-0.5mm", "精度正负零点五毫米"),
    ("偏差±2%", "偏差正负百分之二"),
    ("±0.05MPa", "正负零点零五兆帕"),
    # percentages
    ("阀门开度100%", "阀门开度百分之一百"),
    ("电量5.5%", "电量百分之五点五"),
    ("负荷-12%", "负荷负百分之十二"),
    ("含氧量0.5%", "含氧量百分之零点五"),
    ("含水率3‰", "含水率千分之三"),
    # ordinals
    ("1st报警", "第一报警"),
    ("2nd", "第二"),
    ("第3台", "第三台"),
    # ranges
    ("温度5–10℃", "温度五到十摄氏度"),
    ("压力0.4~0.6MPa", "压力零点四到零点六兆帕"),
    ("电流4-20mA", "电流四到二十毫安"),
    ("湿度40%~60%", "湿度百分之四十到百分之六十"),
    ("转速1,000-1,500rpm", "转速一千到一千五百转每分"),
    ("温度-20~60℃", "温度零下二十到六十摄氏度"),
    ("范围5–10", "范围五到十"),
    # negative values
    ("温度-18.5℃", "温度零下十八点五摄氏度"),
    ("偏移-0.02mm", "偏移负零点零二毫米"),
    ("真空-95kPa", "真空负九十五千帕"),
    ("液位-350", "液位负三百五十"),
    # fractions
    ("3/4开度", "四分之三开度"),
    ("1 1/2寸", "一又二分之一寸"),
    ("2/3液位", "三分之二液位"),
    # slash pairs: a count before a measure word, 斜杠 past the whole, a date with a cue
    ("2/3台泵运行", "三台中的两台泵运行"),
    ("1/2套机组", "两套中的一套机组"),
    ("12/3", "十二斜杠三"),
    ("\u00bd寸", "二分之一寸"),
    ("1\u00bd寸", "一又二分之一寸"),
    ('3/4"管道', "四分之三英寸管道"),
    ("1/2 in阀门", "二分之一英寸阀门"),
    ('4/4"', "四斜杠四英寸"),
    ("日期10/20停机", "日期十月二十日停机"),
    ("10/20 14:00停机", "十月二十日 十四点停机"),
    # URLs, money, codes, ratios, time ranges, compact timestamps, plant units
    (
        "访问http://10.0.0.5:8080/status失败",
        "访问 H T T P 冒号斜杠斜杠幺零点零点零点五端口八零八零斜杠 S T A T U S 失败",
    ),
    ("费用\uffe5300", "费用三百元"),
    ("$1,200", "一千二百美元"),
    ("CNY 300", "三百元"),
    ("代码0x1F", "代码十六进制幺 F"),
    ("比例1:50", "比例一比五十"),
    ("压力\u22485bar", "压力约五巴"),
    ("~5min", "约五分钟"),
    ("班次08:00-16:00", "班次八点到十六点"),
    ("时间20261130T074500Z", "时间协调世界时二零二六年十一月三十日七点四十五分"),
    ("流量120Nm\u00b3/h", "流量一百二十标准立方米每小时"),
    ("压力3bar(g)", "压力三巴表压"),
    # units
    ("电压380V", "电压三百八十伏"),
    ("电流0.5A", "电流零点五安"),
    ("功率75kW", "功率七十五千瓦"),
    ("频率49.8Hz", "频率四十九点八赫兹"),
    ("油压0.25MPa", "油压零点二五兆帕"),
    ("转速1500r/min", "转速一千五百转每分"),
    ("风量12000m³/h", "风量一万二千立方米每小时"),
    ("重量2.5t", "重量二点五吨"),
    ("延时30s", "延时三十秒"),
    ("绝缘电阻0.5MΩ", "绝缘电阻零点五兆欧"),
    ("噪声85dB", "噪声八十五分贝"),
    # compact durations: 两 for two, 分钟 at the end, 分 before seconds
    ("停机3h40m", "停机三小时四十分钟"),
    ("1h05m20s", "一小时五分二十秒"),
    ("运行2d 4h", "运行两天四小时"),
    ("延时1h30", "延时一小时三十分钟"),
    ("持续2h00m", "持续两小时"),
    # MAC addresses: pair by pair, 幺 for 1, a pause between pairs
    ("MAC地址AC:DE:48:00:11:22未知", "M A C 地址 A C，D E，四八，零零，幺幺，二二未知"),
    ("设备ac-de-48-00-11-22离线", "设备 A C，D E，四八，零零，幺幺，二二离线"),
    # telephone numbers: digit by digit with 幺, a pause between groups
    ("电话021-60121234", "电话零二幺，六零幺二，幺二三四"),
    ("010-12345678转3305", "零幺零，幺二三四，五六七八转三三零五"),
    ("分机3305", "分机三三零五"),
    ("火警119，急救120", "火警幺幺九，急救幺二零"),
    ("请拨打110", "请拨打幺幺零"),
    ("手机号138-1234-5678", "手机号幺三八，幺二三四，五六七八"),
    ("阈值110", "阈值一百一十"),  # a short number alone is an amount
    # a known field inside a longer token: 杠 and 斜杠 for the joiners
    ("网关GW2-10.20.30.40-A离线", "网关 G W 二 杠 幺零点二零点三零点四零 杠 A 离线"),
    ("柜3/PT-101A压力高", "柜三 斜杠 P T 杠 幺零幺 A 压力高"),
    ("PLC-192.168.1.10:502超时", "P L C 杠 幺九二点幺六八点幺点幺零端口五零二超时"),
    ("PT-101A/B", "P T 杠 幺零幺 A 斜杠 B"),
    # units from their parts: prefixes, powers, product and quotient signs
    ("无功电量5kvar·h", "无功电量五千乏时"),
    ("扭矩12ft·lbf", "扭矩十二英尺磅力"),
    ("电池100A·h", "电池一百安时"),
    ("加速度9.81m/s²", "加速度九点八一米每二次方秒"),
    ("密度3kg/m³", "密度三千克每立方米"),
    ("线速度40m/min", "线速度四十米每分钟"),
    ("扭矩60Nm", "扭矩六十牛米"),
    ("粒径5µm", "粒径五微米"),
    ("气压1013hPa", "气压一千零一十三百帕"),
    # whole alerts
    (
        "2024-05-01 08:30:15 2#炉TT-101温度-5.5℃",
        "二零二四年五月一日 八点三十分十五秒 二号炉 T T 杠 幺零幺 温度零下五点五摄氏度",
    ),
    (
        "1#空压机排气压力0.85MPa，设定值0.7±0.05MPa",
        "一号空压机排气压力零点八五兆帕，设定值零点七正负零点零五兆帕",
    ),
    ("A3-07柜门打开", "A 三 杠 零七 柜门打开"),
    (
        "网关192.168.1.1:502通讯中断，请检查",
        "网关幺九二点幺六八点幺点幺端口五零二通讯中断，请检查",
    ),
    (
        "3#磨机电流1,250A，超过额定值1,100A",
        "三号磨机电流一千二百五十安，超过额定值一千一百安",
    ),
    ("2024年5月1日8点，1#、2#风机跳闸", "二零二四年五月一日八点，一号、二号风机跳闸"),
]

# The classes an attack on zh-front-5 found read wrong, each as the attack wrote it (zh-front-6).
HOSTILE_FORMS = [
    # superscript powers and any dash as a minus
    ("真空度1×10⁻⁶mbar", "真空度一乘十的负六次方毫巴"),
    ("面积5²", "面积五的二次方"),
    ("温度–5℃", "温度零下五摄氏度"),
    ("温度‐5℃", "温度零下五摄氏度"),
    # a bare leading point, decimals in a ratio
    ("压力.5MPa", "压力零点五兆帕"),
    ("配比1:2.5", "配比一比二点五"),
    ("比例1:0.5", "比例一比零点五"),
    ("比值1.5/3", "比值一点五斜杠三"),
    # a ratio word not directly before, a score, times that cannot be
    ("比例（1:50）", "比例（一比五十）"),
    ("配比为1:50", "配比为一比五十"),
    ("比分3:1", "比分三比一"),
    ("检查13:70", "检查十三冒号七十"),
    ("重启25:00", "重启二十五冒号零零"),
    # a month and a day with a word before or after; days that cannot be
    ("10/20检修", "十月二十日检修"),
    ("请在10/20前完成", "请在十月二十日前完成"),
    ("10/20日检修", "十月二十日检修"),
    ("日期31/04", "日期三十一斜杠零四"),
    ("2026-02-30运行", "二零二六杠零二杠三零运行"),
    ("2026-13-01运行", "二零二六杠幺三杠零幺运行"),
    ("在10/12台中", "在十二台中的十台中"),
    # telephone numbers in the groups written, an extension after 转
    ("电话555-1234", "电话五五五，幺二三四"),
    ("电话：555-1234", "电话：五五五，幺二三四"),
    ("555-1234", "五五五，幺二三四"),
    ("座机021 6012 1234", "座机零二幺，六零幺二，幺二三四"),
    ("热线 400 820 8820", "热线四零零，八二零，八八二零"),
    ("电话+86 138 1234 5678", "电话加八六，幺三八，幺二三四，五六七八"),
    ("转3305", "转三三零五"),
    ("电机转3000", "电机转三千"),
    # money with a magnitude, a sign, 元 after the yuan sign, cents as an operator says them
    ("￥1.5万", "一点五万元"),
    ("成本￥-50", "成本负五十元"),
    ("-$50", "负五十美元"),
    ("¥300元", "三百元"),
    ("$1.5M", "一百五十万美元"),
    ("€5.50", "五点五欧元"),
    ("5.00€", "五欧元"),
    # hexadecimal, serial numbers, numbered units
    ("状态字16#FF00", "状态字十六进制 F F 零零"),
    ("序列号8842-1190-07", "序列号八八四二杠幺幺九零杠零七"),
    ("1-3号泵跳闸", "一到三号泵跳闸"),
    ("2/3号泵", "二号和三号泵"),
    ("第3/5号", "第三号和第五号"),
    ("距离1-3米", "距离一到三米"),
    ("Ⅲ号泵", "三号泵"),
    # offsets from UTC, UTC written after a time
    ("请于2026-11-30T07:45:00+08:00前处理", "请于二零二六年十一月三十日七点四十五分东八区前处理"),
    ("故障2026-11-30T07:45:00-05:00", "故障二零二六年十一月三十日七点四十五分西五区"),
    ("10:00+0530", "十点协调世界时加五小时三十分"),
    ("故障2024-05-01 08:30 UTC", "故障协调世界时二零二四年五月一日 八点三十分"),
    # shares, psi, about, time ranges
    ("H2S 10ppm", "H 二 S 百万分之十"),
    ("压力30psi", "压力三十磅每平方英寸"),
    ("约~5min", "约五分钟"),
    ("~14:00开始", "约十四点开始"),
    ("8:00-16:30", "八点到十六点三十分"),
    ("时间08:00—16:00", "时间八点到十六点"),
    # a hyphen no rule read joins a name: 杠
    ("版本v2.1.0-rc1", "版本 V 二点一点零杠 R C 一"),
    ("电费0.65元/度", "电费零点六五元每度"),
    ("第1st", "第一"),
    ('"2/3"台运行', "“三台中的两台”运行"),
    ('"3/4"', "“四分之三”"),
]

# The classes zh-front-6 read wrong, each with its examples (read right since zh-front-7).
FRONT_7 = [
    # an offset after UTC or GMT is the zone, as after a time
    ("08:30 UTC+8", "八点三十分东八区"),
    ("14:00 UTC-5", "十四点西五区"),
    ("UTC+05:30", "协调世界时加五小时三十分"),
    ("2026-11-30 08:30 GMT+8", "二零二六年十一月三十日 八点三十分东八区"),
    ("08:30 UTC+0", "协调世界时八点三十分"),
    # the end of a timestamp range is no offset
    ("2026-11-30T08:00-09:30", "二零二六年十一月三十日八点到九点三十分"),
    ("2026-11-30 08:00-09:30", "二零二六年十一月三十日 八点到九点三十分"),
    ("08:00-09:30", "八点到九点三十分"),
    ("2026-11-30T07:45-05:00", "二零二六年十一月三十日七点四十五分西五区"),
    ("08:00 UTC-09:00 UTC", "协调世界时八点到协调世界时九点"),
    # European grouping, only where nothing else is meant
    ("€1.234,56", "一千二百三十四点五六欧元"),
    ("1.234,56 €", "一千二百三十四点五六欧元"),
    ("€5,50", "五点五欧元"),
    ("1.234.567,8kg", "一百二十三万四千五百六十七点八千克"),
    ("1\u00a0234\u00a0567", "一百二十三万四千五百六十七"),
    ("1\u202f234,5kg", "一千二百三十四点五千克"),
    ("1.234,5kg", "一点二三四、五千克"),
    # ranges with the unit or the currency at both ends
    ("-5°C--10°C", "零下五摄氏度到零下十摄氏度"),
    ("-5°C-10°C", "零下五摄氏度到十摄氏度"),
    ("-1.5--2.5bar", "负一点五到负二点五巴"),
    ("$5-$10", "五美元到十美元"),
    ("¥100~200", "一百到两百元"),
    ("$1.5M-$2M", "一百五十万美元到两百万美元"),
    # a month and a day with one digit, after a firm cue
    ("日期2/3", "日期二月三日"),
    ("于9/30", "于九月三十日"),
    ("处于1/2开度", "处于二分之一开度"),
    ("降至1/2", "降至二分之一"),
    ("1/2完成", "二分之一完成"),
    ("日期2/3/2026", "日期二零二六年二月三日"),
    ("30/11/2026", "二零二六年十一月三十日"),
    # a compact date after a word that says a day is meant
    ("在20261130检修", "在二零二六年十一月三十日检修"),
    ("20261130到期", "二零二六年十一月三十日到期"),
    ("订单号20261130", "订单号二零二六幺幺三零"),
    ("在20261340检修", "在两千零二十六万一千三百四十检修"),
    # telephone numbers with the trunk zero, or many groups
    ("+44 (0)20 7946 0958", "加四四，零，二零，七九四六，零九五八"),
    ("+49 30 1234 5678 90", "加四九，三零，幺二三四，五六七八，九零"),
    # units to a negative power
    ("m⁻¹", "每米"),
    ("密度1000kg·m⁻³", "密度一千千克每立方米"),
    ("真空10⁻⁶mbar", "真空十的负六次方毫巴"),
    ("1.2×10⁻³Pa", "一点二乘十的负三次方帕"),
    # a minus a space parts from its value, where only a value can follow
    ("温度: - 5°C", "温度：零下五摄氏度"),
    ("设定 = - 5 °C", "设定 等于 零下五摄氏度"),
    ("状态: - 5号泵停机", "状态：杠五号泵停机"),
    # ratios after a word of mixing
    ("稀释1:10", "稀释一比十"),
    ("配比3:1", "配比三比一"),
    # runs of Roman numeral characters
    ("Ⅳ", "四"),
    ("ⅰⅴ号机", "四号机"),
    ("ⅩⅣ类", "十四类"),
    # millions and billions in 万 and 亿, inch marks, kelvin after a temperature word
    ("$1.5B", "十五亿美元"),
    ("$0.05B", "五千万美元"),
    ('管道2"', "管道二英寸"),
    ('"2"', '"二"'),
    ('2"管道，3"阀门', "二英寸管道，三英寸阀门"),
    ("温度300K", "温度三百开尔文"),
    ("5K", "五 K"),
    # impossible dates said as written, an alarm code, fractional seconds
    ("2026年13月40日", "二零二六年十三月四十日"),
    ("2026年02月30日", "二零二六年二月三十日"),
    ("报警110", "报警一百一十"),
    ("报警A1区", "报警 A 一区"),
    ("08:30:15.250", "八点三十分十五点二五零秒"),
]


# The classes zh-front-7 read wrong, each with its examples (read right since zh-front-8).
FRONT_8 = [
    # a pair that runs down is a model, standard or part number, not a range
    ("PLC CPU 1516-3 PN/DP故障", "P L C C P U 幺五幺六杠三 P N / D P 故障"),
    ("EN 60204-1", "E N 六零二零四杠幺"),
    ("GB 2626-2019", "G B 二六二六杠二零幺九"),
    ("3-5", "三到五"),
    ("80-60℃", "八十到六十摄氏度"),
    ("1-3号泵", "一到三号泵"),
    # a degree sign's look-alikes before C or F
    ("温度5⁰C", "温度五摄氏度"),
    ("温度5ºC", "温度五摄氏度"),
    ("温度5˚C", "温度五摄氏度"),
    ("5²", "五的二次方"),
    # a countdown before a time unit or after 倒计时
    ("倒计时T-5分钟", "倒计时 T 减五分钟"),
    ("T-10s后启动", "T 减十秒后启动"),
    ("T-5", "T 杠 五"),
    # a landline or a 400 number in spaced groups, no word before
    ("0571 8888 6666", "零五七幺，八八八八，六六六六"),
    ("400 820 8820", "四零零，八二零，八八二零"),
    ("800 600 1200rpm", "八百 六百 一千二百转每分"),
    # a code after a fault, alarm, error or code word
    ("故障F30001", "故障 F 三零零零幺"),
    ("报警A1234", "报警 A 幺二三四"),
    ("错误代码E05", "错误代码 E 零五"),
    ("寄存器40001", "寄存器 四零零零幺"),
    ("报警110", "报警一百一十"),
    # a date with a two-digit year
    ("26-11-30", "二六年十一月三十日"),
    ("26/11/30", "二六年十一月三十日"),
    ("11/30/26", "二六年十一月三十日"),
    ("11/12/10", "十一斜杠十二斜杠十"),
    ("01-02-03", "零幺杠零二杠零三"),
    # a score with a hyphen, rooms and beds, ranges with dots, +86 written onto a number
    ("比分3-1", "比分三比一"),
    ("房间3-105", "房间三杠幺零五"),
    ("3-105室", "三杠幺零五室"),
    ("液位12..5米", "液位十二到五米"),
    ("4...20mA", "四到二十毫安"),
    ("+8613812345678", "加八六，幺三八，幺二三四，五六七八"),
    ("+86-10-88886666", "加八六，幺零，八八八八，六六六六"),
    # a star between numbers is a times sign; a plus before a value with its unit its sign
    ("4*2.5mm²", "四乘二点五平方毫米"),
    ("3.2*10^5Pa", "三点二乘十的五次方帕"),
    ("温度+25℃", "温度正二十五摄氏度"),
    ("+0.5%", "正百分之零点五"),
    ("5+3mm", "五加三毫米"),
    ("+/-0.5mm", "正负零点五毫米"),
    # licence plates, long values after a value word, 0086
    ("车牌京A12345", "车牌京 A 幺二三四五"),
    ("数值1000000000", "数值十亿"),
    ("1000000000", "一零零零零零零零零零"),
    ("0086-10-88886666", "零零八六，幺零，八八八八，六六六六"),
    # a zone's abbreviation after a time
    ("14:05 CST", "北京时间十四点零五分"),
    ("08:00-16:00 CST", "北京时间八点到十六点"),
    ("09:30 JST", "日本标准时间九点三十分"),
    # a tag, a formula or a label ending in digits is parted from a spaced value after it
    ("PT101 5bar", "P T 幺零幺，五巴"),
    ("T1 85℃", "T 一，八十五摄氏度"),
    ("压力表PT-101 2.5MPa", "压力表 P T 杠 幺零幺，二点五兆帕"),
    ("Q3 2026产量", "Q 三 两千零二十六产量"),
    ("5 m3 10分钟", "五立方米 十分钟"),
    # escape sequences, control and format characters and lone surrogates are not said
    ("\x1b[31m报警\x1b[0m", "报警"),
    ("温度\udfff5℃", "温度五摄氏度"),
    ("温度５\u200b0℃", "温度五十摄氏度"),
    ("温度\u200b50℃", "温度五十摄氏度"),
    # a hyphen after a place or machine word joins a label; a value keeps its minus
    ("北区-3", "北区杠三"),
    ("A区-2", "A 区杠二"),
    ("3号机-2号泵", "三号机杠二号泵"),
    ("2期-3号", "二期杠三号"),
    ("3号-5号泵", "三号到五号泵"),
    ("偏差-3", "偏差负三"),
    ("北区-3℃", "北区零下三摄氏度"),
    # a number with A before a machine or place word is a label, not amperes
    ("1A区", "一 A 区"),
    ("2A泵", "二 A 泵"),
    ("1A、1B泵运行", "一 A、一 B 泵运行"),
    ("3A电机", "三 A 电机"),
    ("5A保险丝", "五安保险丝"),
    ("电流5A", "电流五安"),
    # a time with seconds after a duration word is a duration
    ("运行时长02:15:00", "运行时长两小时十五分钟"),
    ("停机时长01:30:00", "停机时长一小时三十分钟"),
    ("持续时间00:10:00", "持续时间十分钟"),
    ("耗时00:45:10", "耗时四十五分十秒"),
    # a dotted date day first; a dashed month and day where a cue says a date
    ("30.11.2026", "二零二六年十一月三十日"),
    ("30.11.2026 14:05", "二零二六年十一月三十日 十四点零五分"),
    ("日期11-30", "日期十一月三十日"),
    ("计划12-05停机", "计划十二月五日停机"),
    ("11-30检修", "十一月三十日检修"),
    ("12-01 08:00", "十二月一日 八点"),
    ("11-30", "十一到三十"),
    # a version keeps its leading zeros
    ("固件版本V1.02.003", "固件版本 V 一点零二点零零三"),
    ("版本01.02.03", "版本零一点零二点零三"),
    ("版本2.0.01", "版本二点零点零一"),
    ("固件1.00.05", "固件一点零零点零五"),
    # two dot groups of three or more group thousands
    ("1.234.567", "一百二十三万四千五百六十七"),
    ("重量1.234.567kg", "重量一百二十三万四千五百六十七千克"),
    ("1.234", "一点二三四"),
    # capitals with a decimal written onto them are one address
    ("DB10.DBX2.3为真", "D B 幺零 点 D B X 二点三为真"),
    ("%IX0.1", "百分号 I X 零点一"),
    ("AI1.5故障", "A I 一点五故障"),
    ("DI0.3断开", "D I 零点三断开"),
    ("PM2.5超标", "P M 二点五超标"),
    # 零下 and 负 said once and alike
    ("温度零下-5℃", "温度零下五摄氏度"),
    ("偏差-3℃", "偏差负三摄氏度"),
    ("温度-5至5℃", "温度零下五到五摄氏度"),
    ("温度-5到-10℃", "温度零下五到零下十摄氏度"),
    # a Roman numeral in capitals before a counting word
    ("II段母线", "二段母线"),
    ("IV号线停机", "四号线停机"),
    ("V号", "V 号"),
    # a binary literal digit by digit
    ("0b1011", "二进制幺零幺幺"),
    ("错误0b11110000", "错误二进制幺幺幺幺零零零零"),
    # Roman numeral characters no numeral writes that way are a list
    ("ⅠⅡ段", "一、二段"),
    ("ⅩⅡ号", "十二号"),
    # a twelve-hour time with its part of the day
    ("12:00 PM", "中午十二点"),
    ("2:05 PM", "下午两点零五分"),
    ("9:30 AM", "上午九点三十分"),
    # two before a measure word; a hyphenated mixed number of inches
    ("2个人", "两个人"),
    ("2千克", "两千克"),
    ("第2次", "第二次"),
    ('1-1/2"管道', "一又二分之一英寸管道"),
]


# zh-front-10: as an operator says them (a spaced-before hyphen the next value's minus, a
# label before a date, falling ranges with a unit, identifiers, event durations, year-months).
FRONT_10 = [
    ("罐3 -5℃", "罐三，零下五摄氏度"),  # zh-front-11: a pause after the label
    ("温度-5℃ -7℃", "温度零下五摄氏度 零下七摄氏度"),
    ("设定值 -10.5", "设定值 负十点五"),
    ("3 - 5℃", "三到五摄氏度"),
    ("3 ~5℃", "三到五摄氏度"),
    ("柜3/2024-05-01", "柜三，二零二四年五月一日"),
    ("3号柜 2024/05/01", "三号柜，二零二四年五月一日"),
    ("2#/2024.05.01", "二号，二零二四年五月一日"),
    ("速度10-5转", "速度十到五转"),
    ("10-5台", "十到五台"),
    ("压力 12-8", "压力十二到八"),
    ("10-5", "幺零杠五"),
    ("工号1234", "工号幺二三四"),
    ("卡号：1021", "卡号：幺零二幺"),
    ("订单号20240511", "订单号二零二四零五幺幺"),
    ("停机1:30:00", "停机一小时三十分钟"),
    ("离线00:45:10", "离线四十五分十秒"),
    ("停机08:30:00", "停机八点三十分"),
    ("2026.11", "二零二六年十一月"),
    ("截至2026.05", "截至二零二六年五月"),
    ("3.11", "三点一一"),
    ("流量2026.11", "流量两千零二十六点一一"),
    ("2026.11元", "两千零二十六点一一元"),
    ("2桶", "两桶"),
    ("2遍", "两遍"),
    ("12台", "十二台"),
    ("2号", "二号"),
    ("2.5桶", "二点五桶"),
    ("第2遍", "第二遍"),
]


@pytest.fixture(scope="module")
def normalizer():
    return MandarinNormalizer()


def test_the_table_covers_enough_forms():
    assert len(ALERTS) == 29  # every distinct Mandarin alert of the shared benchmark set
    assert len(ALERTS) + len(FORMS) + len(PLANT_FORMS) >= 160


@pytest.mark.parametrize(
    ("text", "expected"),
    ALERTS + FORMS + PLANT_FORMS + HOSTILE_FORMS + FRONT_7 + FRONT_8 + FRONT_10,
)
def test_alert_reading(normalizer, text, expected):
    assert normalizer.normalize(text) == expected


@pytest.mark.parametrize(
    ("n", "reading"),
    [
        (0, "零"),
        (10, "十"),
        (15, "十五"),
        (20, "二十"),
        (102, "一百零二"),
        (200, "两百"),
        (1010, "一千零一十"),
        (2000, "两千"),
        (10001, "一万零一"),
        (20000, "两万"),
        (100000, "十万"),
        (120000000, "一亿二千万"),
    ],
)
def test_integers(n, reading):
    assert read_integer(n) == reading


def test_leading_zeros_are_read_as_digits():
    assert read_number("007") == "零零七"
    assert read_number("0.05") == "零点零五"


# What alert text is made of: digits of several scripts, the pre-pass's separators and symbols,
# units and tag letters, Chinese.
_PIECES = st.sampled_from(
    [*"0123456789٣५０１", *".,:/-~#%‰℃°±≥+e ", "MPa", "kPa", "rpm", "PT", "A", "号", "温度", "℃"]
)


@settings(max_examples=400, deadline=None)
@given(text=st.lists(_PIECES, max_size=16).map("".join))
def test_the_prepass_reads_every_digit(text):
    """So wetext, which acts only on a digit, is never needed: see `normalize.py`."""
    assert not re.search(r"\d", prepass(unicodedata.normalize("NFKC", text)))


def test_wetext_would_change_nothing_the_prepass_leaves():
    """What the normalizer read before it gave wetext only a text with a digit left: wetext's
    own reading of every form and alert, after the pre-pass, is that text unchanged."""
    from wetext import Normalizer

    wetext = Normalizer(lang="zh", operator="tn")
    for written, _ in ALERTS + FORMS + PLANT_FORMS + HOSTILE_FORMS + FRONT_7:
        left = prepass(unicodedata.normalize("NFKC", written))
        assert wetext.normalize(left) == left, written


# Long runs of digits and separators (a dumped register array) take time in proportion to
# their length, as ordinary text does (zh-front-8): `'1' * 10000` took 110 s.
LONG_SHAPES = ["1", "1.", "1-", "1/", "\uff11", "1 ", "1A", "1,", "1:", "1#", "A1", "-1", "1号"]


def _best_time(normalizer, text: str, under: float = 0.0) -> float:
    """The best of three readings' CPU time (this thread's: other processes do not add to it),
    stopping at the first under `under`: whether the best is under it is then known."""
    import time

    best = float("inf")
    for _ in range(3):
        start = time.thread_time()
        normalizer.normalize(text)
        best = min(best, time.thread_time() - start)
        if best < under:
            break
    return best


@pytest.fixture(scope="module")
def ordinary_time(normalizer) -> float:
    """How long ordinary text of the long runs' length takes, the runs' yardstick."""
    return max(_best_time(normalizer, ("温度过高请检查" * 10_000)[:10_000]), 0.005)


@pytest.mark.parametrize("shape", LONG_SHAPES)
def test_a_long_run_takes_time_in_proportion_to_its_length(normalizer, ordinary_time, shape):
    limit = 20 * ordinary_time
    assert _best_time(normalizer, (shape * 10_000)[:10_000], under=limit) < limit
